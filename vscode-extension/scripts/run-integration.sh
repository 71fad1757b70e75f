#!/usr/bin/env bash
# Extension-host integration tests: the extension loaded from source (dist/ built) in code-server,
# driven by test/integration/*.test.ts (compiled to out/), on a temp copy of examples/.
# Usage: run-integration.sh [CODE_SERVER_DIR]   (env: CODE_SERVER_DIR, PORT, ARTIFACTS)
# Prints the mocha report and exits with its status.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EXT=$(cd "$HERE/.." && pwd)
REPO=$(cd "$EXT/.." && pwd)
CSDIR=${1:-${CODE_SERVER_DIR:-$HOME/.cache/stepsmith/code-server}}
PORT=${PORT:-8091}
ARTIFACTS=${ARTIFACTS:-$REPO/artifacts}
[ -x "$CSDIR/node_modules/.bin/code-server" ] || { echo "code-server not found in $CSDIR (scripts/install-code-server.sh)"; exit 2; }
[ -f "$EXT/dist/extension.js" ] || { echo "dist/extension.js missing: npm run build"; exit 2; }
[ -f "$EXT/out/test/integration/index.js" ] || { echo "out/test/integration missing: npm run compile-tests"; exit 2; }

WS=$(mktemp -d /tmp/stepsmith-it-ws.XXXXXX)
EXAMPLES=${EXAMPLES:-$REPO/examples}
cp -r "$EXAMPLES/invoice-matching" "$EXAMPLES/payment-chasing" "$WS/"
rm -rf "$WS"/*/.stepsmith
# a fixture that must fail: nothing-due with a wrong expected date
python3 - "$WS/payment-chasing/fixtures/overdue" <<'EOF'
import json, sys, pathlib
d = pathlib.Path(sys.argv[1])
fx = json.loads((d / "nothing-due.json").read_text())
fx["expected"]["output"]["as_of"] = "2026-12-02"
(d / "wrong-expectation.json").write_text(json.dumps(fx, indent=2) + "\n")
EOF
# Python outside any workflow folder (with a violation): the extension must not serve it
mkdir -p "$WS/loose" && printf 'import os\nimport subprocess\n\n\ndef f():\n    return eval("1")\n' >"$WS/loose/stray.py"

mkdir -p "$ARTIFACTS/screenshots"
export STEPSMITH_TEST_OUT=$(mktemp /tmp/stepsmith-it-report.XXXXXX)
export OUT_DIR=$ARTIFACTS/screenshots
export DEVHOST_TIMEOUT_S=${DEVHOST_TIMEOUT_S:-420}
bash "$HERE/run-devhost-test.sh" "$CSDIR" "$EXT" "$EXT/out/test/integration/index.js" "$WS" "$PORT" >"$STEPSMITH_TEST_OUT.log" 2>&1
rc=$?
[ $rc -ne 0 ] && { echo "--- devhost log (tail)"; tail -n 40 "$STEPSMITH_TEST_OUT.log"; }
echo "--- integration report"
cat "$STEPSMITH_TEST_OUT"
if ! grep -q '^integration: [0-9]* passed, [0-9]* failed' "$STEPSMITH_TEST_OUT"; then
  echo "integration: 0 passed, 1 failed (the test run did not report; see $STEPSMITH_TEST_OUT.log)"
  [ $rc -eq 0 ] && rc=1
fi
rm -rf "$WS"
exit $rc
