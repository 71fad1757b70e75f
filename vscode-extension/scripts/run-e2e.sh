#!/usr/bin/env bash
# UI end-to-end of the packaged .vsix: install it into a fresh code-server extensions dir, open a
# copy of examples/ (with a planted rule violation and a failing fixture), drive it with
# test/e2e/drive.js, screenshots into ARTIFACTS/screenshots. Then (issue 18) a cloned folder that
# ships stepsmith/__init__.py, yaml.py, pygls/, ... opened trusted and untrusted: test/e2e/hostile.js.
# Usage: run-e2e.sh [VSIX]   (env: CODE_SERVER_DIR, PORT, ARTIFACTS,
#                              E2E_SUITES: default "main hostile-trusted hostile-untrusted")
# Ends with "e2e: N passed, N failed" over every suite.
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
rm -f "$SHOTS"/0[0-9]-*.png "$SHOTS"/fail-*.png "$SHOTS"/e2e-error.png "$SHOTS"/e2e-result.json "$SHOTS"/hostile-*.png
E2E_SUITES=${E2E_SUITES:-main hostile-trusted hostile-untrusted}

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

CSPID=
stop_cs() { [ -n "$CSPID" ] && { kill -TERM -- -$CSPID 2>/dev/null; sleep 1; kill -KILL -- -$CSPID 2>/dev/null; }; CSPID=; }
trap stop_cs EXIT
# start_cs NAME USERDIR FOLDER [--disable-workspace-trust]: one code-server on $PORT
start_cs() {
  setsid "$CS" --config "$RUN/config.yaml" --user-data-dir "$2" --extensions-dir "$RUN/ext" \
    --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry --disable-update-check \
    ${4:-} "$3" >"$RUN/code-server-$1.log" 2>&1 &
  CSPID=$!
  for _ in $(seq 1 150); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
}
TOTAL_P=0; TOTAL_F=0; RC=0
# tally NAME RC OUTPUT USERDIR: adds the driver's "e2e: N passed, N failed" line to the totals
tally() {
  local line p f log
  line=$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed' "$3" | tail -1)
  p=$(echo "$line" | sed -E 's/^e2e: ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  [ -z "$line" ] && { p=0; f=1; }
  [ "$2" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  TOTAL_P=$((TOTAL_P + p)); TOTAL_F=$((TOTAL_F + f))
  if [ "$2" -ne 0 ]; then
    RC=1
    echo "--- $1: code-server log (tail)"; tail -n 30 "$RUN/code-server-$1.log"
    log=$(find "$4/logs" -name '*Stepsmith*.log' 2>/dev/null | head -1)
    [ -n "$log" ] && { echo "--- $1: Stepsmith output channel (tail)"; tail -n 40 "$log"; }
  fi
}

# a cloned folder that ships modules the server or the interpreter probe would import: each
# leaves a marker in MARKERS when imported (issue 18, item 1)
plant_hostile() {  # FOLDER MARKERS
  python3 - "$1" "$2" <<'PY'
import sys, pathlib
ws, markers = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for name in ("stepsmith", "yaml", "pygls", "lsprotocol", "json", "argparse", "logging"):
    body = f"open({str(markers / name)!r}, 'w').close()\n"
    if name in ("stepsmith", "pygls", "lsprotocol"):
        (ws / name).mkdir()
        (ws / name / "__init__.py").write_text(body)
    else:
        (ws / f"{name}.py").write_text(body)
p = ws / "payment-chasing/steps/risk.py"
lines = p.read_text().splitlines(keepends=True)
i = next(n for n, l in enumerate(lines) if l.startswith("from ") or l.startswith("import "))
lines.insert(i, "import subprocess\n")
p.write_text("".join(lines))
PY
}

for SUITE in $E2E_SUITES; do
  case $SUITE in
    main)
      start_cs main "$RUN/user" "$WS" --disable-workspace-trust
      (cd "$EXT" && node test/e2e/drive.js "http://127.0.0.1:$PORT/?folder=$WS" "$SHOTS") | tee "$RUN/out-main.txt"
      tally main "${PIPESTATUS[0]}" "$RUN/out-main.txt" "$RUN/user"
      ;;
    hostile-trusted|hostile-untrusted)
      MODE=${SUITE#hostile-}
      HWS=$RUN/$SUITE/cloned
      MARKERS=$RUN/$SUITE/markers
      mkdir -p "$HWS" "$MARKERS" "$RUN/user-$SUITE/User"
      cp -r "$EXAMPLES/payment-chasing" "$HWS/"
      rm -rf "$HWS/payment-chasing/.stepsmith"
      plant_hostile "$HWS" "$MARKERS"
      python3 - "$RUN/user/User/settings.json" "$RUN/user-$SUITE/User/settings.json" "$MODE" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
if sys.argv[3] == "untrusted":
    s.update({"security.workspace.trust.enabled": True, "security.workspace.trust.startupPrompt": "never",
              "security.workspace.trust.emptyWindow": False})
json.dump(s, open(sys.argv[2], "w"), indent=2)
PY
      FLAG=--disable-workspace-trust
      [ "$MODE" = untrusted ] && FLAG=
      start_cs "$SUITE" "$RUN/user-$SUITE" "$HWS" $FLAG
      (cd "$EXT" && node test/e2e/hostile.js "http://127.0.0.1:$PORT/?folder=$HWS" "$SHOTS" "$MARKERS" "$MODE") | tee "$RUN/out-$SUITE.txt"
      tally "$SUITE" "${PIPESTATUS[0]}" "$RUN/out-$SUITE.txt" "$RUN/user-$SUITE"
      ;;
    *) echo "unknown e2e suite $SUITE"; TOTAL_F=$((TOTAL_F + 1)); RC=1 ;;
  esac
  stop_cs
done
if [ $RC -ne 0 ]; then
  echo "(code-server state kept in $RUN)"
else
  rm -rf "$RUN"
fi
echo "e2e: $TOTAL_P passed, $TOTAL_F failed"
exit $RC
