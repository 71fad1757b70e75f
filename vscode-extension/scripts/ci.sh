#!/usr/bin/env bash
# CI for the VS Code extension, from a fresh Debian machine as root (called by the repo's .ci/run):
#   1. system packages (chromium, bubblewrap, libfaketime, libseccomp, build deps of code-server)
#   2. npm ci
#   3. code-server 4.100.3 (= VS Code 1.100.3) from the npm registry, cached in
#      $CODE_SERVER_DIR (default ~/.cache/stepsmith/code-server; a second run skips it)
#   4. build (esbuild) + typecheck (tsc)
#   5. mocha unit tests of the pure TypeScript logic
#   6. npm run package -> stepsmith-<version>.vsix with bundled/libs (checked)
#   7. integration tests inside VS Code's real extension host (extension from source)
#   8. UI end-to-end of the packaged .vsix in headless Chromium, screenshots in
#      $ARTIFACTS/screenshots (default <repo>/artifacts/screenshots)
# Exits non-zero on any failure; the last line is "N passed, N failed" over every test and stage.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EXT=$(cd "$HERE/.." && pwd)
REPO=$(cd "$EXT/.." && pwd)
export CODE_SERVER_DIR=${CODE_SERVER_DIR:-$HOME/.cache/stepsmith/code-server}
export ARTIFACTS=${ARTIFACTS:-$REPO/artifacts}
LOGS=$ARTIFACTS/vscode-logs
mkdir -p "$ARTIFACTS/screenshots" "$LOGS"
T0=$(date +%s)
PASSED=0
FAILED=0
FAILURES=()

say() { echo "[vscode-ci $(( $(date +%s) - T0 ))s] $*"; }
# stage NAME CMD...: runs a step that is not itself a test runner; counts 1 pass or 1 fail
stage() {
  local name=$1; shift
  say "== $name"
  if "$@" >"$LOGS/$name.log" 2>&1; then
    say "ok   $name"
    PASSED=$((PASSED + 1)); return 0
  else
    say "FAIL $name (last lines of $LOGS/$name.log follow)"
    tail -n 40 "$LOGS/$name.log"
    FAILED=$((FAILED + 1)); FAILURES+=("$name"); return 1
  fi
}
# tests NAME PATTERN CMD...: runs a test runner; adds its "X passed, Y failed"-style counts
tests() {
  local name=$1 kind=$2; shift 2
  say "== $name"
  "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  local p=0 f=0
  if [ "$kind" = mocha ]; then
    p=$(grep -Eo '^ *[0-9]+ passing' "$LOGS/$name.log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
    f=$(grep -Eo '^ *[0-9]+ failing' "$LOGS/$name.log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  else
    local line
    line=$(grep -E "^$kind: [0-9]+ passed, [0-9]+ failed" "$LOGS/$name.log" | tail -1)
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    [ -z "$line" ] && { p=0; f=0; }
  fi
  p=${p:-0}; f=${f:-0}
  if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # a crash before any report still fails
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  if [ $rc -eq 0 ]; then
    say "ok   $name: $p passed, $f failed"
  else
    say "FAIL $name: $p passed, $f failed (rc=$rc); report:"
    FAILURES+=("$name")
    tail -n 80 "$LOGS/$name.log"
  fi
  return $rc
}

install_system() {
  export DEBIAN_FRONTEND=noninteractive
  local need=()
  for pkg in chromium bubblewrap libfaketime libseccomp2 curl ripgrep build-essential pkg-config libkrb5-dev \
             libx11-dev libxkbfile-dev libsecret-1-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -q
    apt-get install -y -q "${need[@]}"
  fi
  command -v node && node --version && command -v python3 && python3 --version
  python3 -c 'import sys; assert sys.version_info >= (3, 11), sys.version'
}

check_vsix() {
  local v; v=$(node -p "require('$EXT/package.json').version")
  local vsix="$EXT/stepsmith-$v.vsix"
  [ -f "$vsix" ] || { echo "missing $vsix"; return 1; }
  python3 - "$vsix" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["extension/package.json", "extension/dist/extension.js", "extension/schemas/workflow.schema.json",
        "extension/bundled/libs/stepsmith/server/__init__.py", "extension/bundled/libs/stepsmith/runner/__init__.py",
        "extension/bundled/libs/pygls/__init__.py", "extension/bundled/libs/pydantic/__init__.py"]
missing = [n for n in need if n not in names]
so = [n for n in names if n.startswith("extension/bundled/libs/pydantic_core/_pydantic_core.cpython-311")]
bad = [n for n in names if "/node_modules/" in n or n.endswith(".ts") or "/src/" in n.split("bundled/")[0]]
print(f"{len(names)} files; pydantic_core for cp311: {so}")
if missing or not so or bad:
    print("missing:", missing, "unexpected:", bad[:10]); sys.exit(1)
EOF
  ls -la "$vsix"
}

cd "$EXT"
stage system-packages install_system
stage npm-ci npm ci --no-audit --no-fund
stage code-server-install bash "$HERE/install-code-server.sh" "$CODE_SERVER_DIR"
stage build npm run build
stage typecheck npm run typecheck
tests unit-tests mocha npm run test:unit
if stage package npm run package; then
  stage vsix-contents check_vsix
fi
# the integration tests load the extension from source (this folder: dist/ + bundled/)
tests integration integration bash "$HERE/run-integration.sh" "$CODE_SERVER_DIR"
tests e2e e2e bash "$HERE/run-e2e.sh"

say "done in $(( $(date +%s) - T0 ))s; logs in $LOGS, screenshots in $ARTIFACTS/screenshots"
[ ${#FAILURES[@]} -gt 0 ] && say "failed: ${FAILURES[*]}"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ] && [ ${#FAILURES[@]} -eq 0 ]
