#!/usr/bin/env bash
# Extension-host integration tests: the extension loaded from source (dist/ built) in code-server,
# running test/integration/*.test.ts (compiled to out/) with mocha in the real extension host, on
# temp copies of examples/. Two sessions:
#   trusted    workspace trust off (trusted): diagnostics, reach, Test Explorer runs, commands
#   untrusted  workspace trust on, folder not trusted: diagnostics only, nothing executes
#   pyext      no stepsmith.interpreter: the interpreter comes from a stand-in Python extension
#              (test/fake-python-extension, id ms-python.python) and follows its changes
#   yamlext    beside a stand-in for Red Hat's YAML extension (test/fake-yaml-extension, id
#              redhat.vscode-yaml) running the real yaml-language-server with our schema
# Usage: run-integration.sh [CODE_SERVER_DIR]   (env: CODE_SERVER_DIR, PORT, EXAMPLES, SUITES)
# Ends with "integration: N passed, N failed" and exits non-zero when anything failed.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EXT=$(cd "$HERE/.." && pwd)
REPO=$(cd "$EXT/.." && pwd)
CSDIR=${1:-${CODE_SERVER_DIR:-$HOME/.cache/stepsmith/code-server}}
PORT=${PORT:-8091}
EXAMPLES=${EXAMPLES:-$REPO/examples}
SUITES=${SUITES:-trusted untrusted pyext yamlext}
ARTIFACTS=${ARTIFACTS:-$REPO/artifacts}
[ -x "$CSDIR/node_modules/.bin/code-server" ] || { echo "code-server not found in $CSDIR (scripts/install-code-server.sh)"; echo "integration: 0 passed, 1 failed"; exit 2; }
[ -f "$EXT/dist/extension.js" ] || { echo "dist/extension.js missing: npm run build"; echo "integration: 0 passed, 1 failed"; exit 2; }
[ -f "$EXT/out/test/integration/index.js" ] || { echo "out/test/integration missing: npm run compile-tests"; echo "integration: 0 passed, 1 failed"; exit 2; }
mkdir -p "$ARTIFACTS/screenshots"

prepare_workspace() {  # DIR
  local WS=$1
  cp -r "$EXAMPLES/invoice-matching" "$EXAMPLES/payment-chasing" "$WS/"
  rm -rf "$WS"/*/.stepsmith
  # a fixture that must fail: nothing-due with a wrong expected date
  python3 - "$WS/payment-chasing/fixtures/overdue" <<'PY'
import json, sys, pathlib
d = pathlib.Path(sys.argv[1])
fx = json.loads((d / "nothing-due.json").read_text())
fx["expected"]["output"]["as_of"] = "2026-12-02"
(d / "wrong-expectation.json").write_text(json.dumps(fx, indent=2) + "\n")
PY
  # Python outside any workflow folder (with a violation): the extension must not serve it
  mkdir -p "$WS/loose" && printf 'import os\nimport subprocess\n\n\ndef f():\n    return eval("1")\n' >"$WS/loose/stray.py"
}

# Which stepsmith the server runs: the repository's own, never one installed elsewhere on the
# machine. The repo's .venv (scripts/setup) when there is one, else the bundled copy built by
# `npm run package` from this checkout, else whatever `auto` finds.
TEST_PY=${STEPSMITH_TEST_PYTHON:-}
[ -z "$TEST_PY" ] && [ -x "$REPO/.venv/bin/python" ] && TEST_PY=$REPO/.venv/bin/python
if [ -n "$TEST_PY" ]; then
  SERVER_SETTINGS="{\"stepsmith.interpreter\": [\"$TEST_PY\"], \"stepsmith.importStrategy\": \"fromEnvironment\"}"
elif [ -d "$EXT/bundled/libs/stepsmith" ]; then
  SERVER_SETTINGS='{"stepsmith.importStrategy": "useBundled"}'
else
  SERVER_SETTINGS='{}'
fi
echo "server settings for the tests: $SERVER_SETTINGS"

TOTAL_P=0; TOTAL_F=0; RC=0; i=0
for SUITE in $SUITES; do
  WS=$(mktemp -d /tmp/stepsmith-it-ws.XXXXXX)
  prepare_workspace "$WS"
  SETTINGS=$(mktemp /tmp/stepsmith-it-settings.XXXXXX)
  export PREINSTALL_VSIX='' STEPSMITH_FAKE_PYTHON=''
  SUITE_SERVER_SETTINGS=$SERVER_SETTINGS
  if [ "$SUITE" = pyext ]; then
    FAKE_VSIX=$(mktemp -d /tmp/stepsmith-fakepy.XXXXXX)/fake-python.vsix
    (cd "$EXT/test/fake-python-extension" && "$EXT/node_modules/.bin/vsce" package --allow-missing-repository \
       --skip-license --no-dependencies -o "$FAKE_VSIX" >/dev/null 2>&1) || echo "could not package the fake Python extension"
    export PREINSTALL_VSIX=$FAKE_VSIX
    export STEPSMITH_FAKE_PYTHON=${TEST_PY:-$(python3 -c 'import sys; print(sys.executable)')}
    # no interpreter setting: the Python extension's choice must be used
    SUITE_SERVER_SETTINGS=$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); s.pop("stepsmith.interpreter", None); print(json.dumps(s))' "$SERVER_SETTINGS")
  fi
  if [ "$SUITE" = yamlext ]; then
    FAKE_VSIX=$(mktemp -d /tmp/stepsmith-fakeyaml.XXXXXX)/fake-yaml.vsix
    (cd "$EXT/test/fake-yaml-extension" && "$EXT/node_modules/.bin/vsce" package --allow-missing-repository \
       --skip-license --no-dependencies -o "$FAKE_VSIX" >/dev/null 2>&1) || echo "could not package the fake YAML extension"
    export PREINSTALL_VSIX=$FAKE_VSIX
    export STEPSMITH_EXT_DIR=$EXT  # its yaml-language-server and vscode-languageclient
  fi
  if [ "$SUITE" = untrusted ]; then
    export WORKSPACE_TRUST=1
    # a workspace setting that would run a program of the repository's choosing
    printf '#!/bin/sh\ntouch "%s/ran.txt"\nexec python3 "$@"\n' "$WS" >"$WS/must-not-run.sh"; chmod +x "$WS/must-not-run.sh"
    mkdir -p "$WS/.vscode"
    printf '{"stepsmith.interpreter": ["${workspaceFolder}/must-not-run.sh"]}\n' >"$WS/.vscode/settings.json"
    EXTRA='{"security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never", "security.workspace.trust.emptyWindow": false}'
  else
    export WORKSPACE_TRUST=0
    EXTRA='{}'
  fi
  python3 - "$HERE/settings.json" "$SETTINGS" "$SUITE_SERVER_SETTINGS" "$EXTRA" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s.update(json.loads(sys.argv[3]))
s.update(json.loads(sys.argv[4]))
json.dump(s, open(sys.argv[2], "w"), indent=2)
PY
  export SETTINGS_JSON=$SETTINGS STEPSMITH_TEST_SUITE=$SUITE
  export STEPSMITH_TEST_OUT=$(mktemp /tmp/stepsmith-it-report.XXXXXX)
  export OUT_DIR=$ARTIFACTS/screenshots
  export DEVHOST_TIMEOUT_S=${DEVHOST_TIMEOUT_S:-420}
  bash "$HERE/run-devhost-test.sh" "$CSDIR" "$EXT" "$EXT/out/test/integration/index.js" "$WS" "$((PORT + i))" >"$STEPSMITH_TEST_OUT.log" 2>&1
  rc=$?
  i=$((i + 1))
  echo "--- integration suite: $SUITE (rc=$rc)"
  cat "$STEPSMITH_TEST_OUT"
  line=$(grep -E '^integration: [0-9]+ passed, [0-9]+ failed' "$STEPSMITH_TEST_OUT" | tail -1)
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^integration: ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  else
    p=0; f=1; echo "(the $SUITE suite did not report; devhost log follows)"
  fi
  [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
  if [ $rc -ne 0 ]; then echo "--- devhost log (tail)"; tail -n 40 "$STEPSMITH_TEST_OUT.log"; RC=1; fi
  TOTAL_P=$((TOTAL_P + p)); TOTAL_F=$((TOTAL_F + f))
  rm -rf "$WS" "$SETTINGS"
  [ $rc -eq 0 ] && rm -f "$STEPSMITH_TEST_OUT" "$STEPSMITH_TEST_OUT.log"
  [ -n "$PREINSTALL_VSIX" ] && rm -rf "$(dirname "$PREINSTALL_VSIX")"
done
echo "integration: $TOTAL_P passed, $TOTAL_F failed"
exit $RC
