#!/usr/bin/env bash
# UI end-to-end of the packaged .vsix: install it into a fresh code-server extensions dir, open a
# copy of examples/ (with a planted rule violation and a failing fixture), drive it with
# test/e2e/drive.js, screenshots into ARTIFACTS/screenshots.
# Usage: run-e2e.sh [VSIX]   (env: CODE_SERVER_DIR, PORT, ARTIFACTS)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EXT=$(cd "$HERE/.." && pwd)
REPO=$(cd "$EXT/.." && pwd)
VERSION=$(node -p "require('$EXT/package.json').version")
VSIX=${1:-$EXT/stepsmith-$VERSION.vsix}
CSDIR=${CODE_SERVER_DIR:-$HOME/.cache/stepsmith/code-server}
PORT=${PORT:-8095}
ARTIFACTS=${ARTIFACTS:-$REPO/artifacts}
SHOTS=$ARTIFACTS/screenshots
[ -f "$VSIX" ] || { echo "$VSIX not found: npm run package"; echo "e2e: 0 passed, 1 failed"; exit 2; }
[ -x "$CSDIR/node_modules/.bin/code-server" ] || { echo "code-server not found in $CSDIR"; echo "e2e: 0 passed, 1 failed"; exit 2; }
mkdir -p "$SHOTS"
# this run's pictures only (other suites may keep theirs in the same folder)
rm -f "$SHOTS"/0[0-9]-*.png "$SHOTS"/fail-*.png "$SHOTS"/e2e-error.png "$SHOTS"/e2e-result.json

RUN=$(mktemp -d /tmp/stepsmith-e2e.XXXXXX)
WS=$RUN/workspace
mkdir -p "$WS" "$RUN/user/User"
EXAMPLES=${EXAMPLES:-$REPO/examples}
cp -r "$EXAMPLES/invoice-matching" "$EXAMPLES/payment-chasing" "$WS/"
rm -rf "$WS"/*/.stepsmith
python3 - "$WS" <<'EOF'
import json, sys, pathlib
ws = pathlib.Path(sys.argv[1])
# a rule violation for the squiggle: a forbidden import in a step file, after its docstring
p = ws / "invoice-matching/steps/match.py"
lines = p.read_text().splitlines(keepends=True)
i = next(n for n, l in enumerate(lines) if l.startswith("from ") or l.startswith("import "))
lines.insert(i, "import subprocess\n")
p.write_text("".join(lines))
# a fixture that must fail
d = ws / "payment-chasing/fixtures/overdue"
fx = json.loads((d / "nothing-due.json").read_text())
fx["expected"]["output"]["as_of"] = "2026-12-02"
(d / "wrong-expectation.json").write_text(json.dumps(fx, indent=2) + "\n")
EOF
# the packaged extension must work from its own bundled/libs, whatever the machine's Python has
python3 - "$HERE/settings.json" "$RUN/user/User/settings.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s.update({"stepsmith.importStrategy": "useBundled", "workbench.colorTheme": "Default Light Modern",
          "testing.automaticallyOpenPeekView": "never"})
json.dump(s, open(sys.argv[2], "w"), indent=2)
EOF
export XDG_CONFIG_HOME=$RUN/xdg-config XDG_DATA_HOME=$RUN/xdg-data XDG_CACHE_HOME=$RUN/xdg-cache
CS="$CSDIR/node_modules/.bin/code-server"
"$CS" --config "$RUN/config.yaml" --user-data-dir "$RUN/user" --extensions-dir "$RUN/ext" \
  --install-extension "$VSIX" >"$RUN/install.log" 2>&1 || { cat "$RUN/install.log"; echo "e2e: 0 passed, 1 failed"; exit 1; }
ls "$RUN/ext" | grep -q '^stepsmith\.stepsmith-' || { echo "the .vsix did not install"; cat "$RUN/install.log"; echo "e2e: 0 passed, 1 failed"; exit 1; }
echo "installed $(ls "$RUN/ext" | grep '^stepsmith')"

setsid "$CS" --config "$RUN/config.yaml" --user-data-dir "$RUN/user" --extensions-dir "$RUN/ext" \
  --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry --disable-update-check \
  --disable-workspace-trust "$WS" >"$RUN/code-server.log" 2>&1 &
CSPID=$!
trap 'kill -TERM -- -$CSPID 2>/dev/null; sleep 1; kill -KILL -- -$CSPID 2>/dev/null' EXIT
for _ in $(seq 1 150); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
(cd "$EXT" && node test/e2e/drive.js "http://127.0.0.1:$PORT/?folder=$WS" "$SHOTS")
rc=$?
if [ $rc -ne 0 ]; then
  echo "--- code-server log (tail)"; tail -n 30 "$RUN/code-server.log"
  LOG=$(find "$RUN/user/logs" -name '*Stepsmith*.log' 2>/dev/null | head -1)
  [ -n "$LOG" ] && { echo "--- Stepsmith output channel (tail)"; tail -n 40 "$LOG"; }
  echo "(code-server state kept in $RUN)"
else
  kill -TERM -- -$CSPID 2>/dev/null; sleep 1; kill -KILL -- -$CSPID 2>/dev/null; rm -rf "$RUN"
fi
exit $rc
