#!/usr/bin/env bash
# Runs extension tests inside real VS Code (code-server in headless Chromium) with the extension
# loaded from source: the offline stand-in for @vscode/test-electron.
# Adapted from shared/editor-testing/vscode/run-devhost-test.sh.
# Usage: run-devhost-test.sh CODE_SERVER_DIR EXT_DIR TESTS_JS WORKSPACE_FOLDER [PORT]
set -uo pipefail
CSDIR=$1; EXT=$2; TESTS=$3; export WORKSPACE_FOLDER=$4; PORT=${5:-8089}
HERE=$(cd "$(dirname "$0")" && pwd)
RUN=$(mktemp -d /tmp/stepsmith-devhost.XXXXXX); mkdir -p "$RUN/user/User"
cp "${SETTINGS_JSON:-$HERE/settings.json}" "$RUN/user/User/settings.json"
# WORKSPACE_TRUST=1: leave workspace trust on (the folder opens untrusted: restricted mode)
TRUST_FLAG=--disable-workspace-trust
[ "${WORKSPACE_TRUST:-0}" = 1 ] && TRUST_FLAG=
# keep code-server's state out of $HOME
export XDG_CONFIG_HOME=$RUN/xdg-config XDG_DATA_HOME=$RUN/xdg-data XDG_CACHE_HOME=$RUN/xdg-cache
# PREINSTALL_VSIX (space-separated): extensions installed before start (e.g. a stand-in ms-python.python)
for vsix in ${PREINSTALL_VSIX:-}; do
  "$CSDIR/node_modules/.bin/code-server" --config "$RUN/config.yaml" --user-data-dir "$RUN/user" \
    --extensions-dir "$RUN/ext" --install-extension "$vsix" >>"$RUN/install.log" 2>&1 || { cat "$RUN/install.log"; exit 2; }
done
setsid "$CSDIR/node_modules/.bin/code-server" --config "$RUN/config.yaml" --user-data-dir "$RUN/user" \
  --extensions-dir "$RUN/ext" --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry \
  --disable-update-check $TRUST_FLAG "$WORKSPACE_FOLDER" >"$RUN/code-server.log" 2>&1 &
CSPID=$!
# code-server keeps extension hosts (and so the language server) alive: end the whole group
trap 'kill -TERM -- -$CSPID 2>/dev/null; sleep 1; kill -KILL -- -$CSPID 2>/dev/null' EXIT
for _ in $(seq 1 150); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break; sleep 0.2; done
(cd "$EXT" && node "$HERE/devhost.js" "$PORT" "$EXT" "$TESTS")
rc=$?
if [ $rc -eq 0 ]; then
  echo "devhost test rc=0"
  kill -TERM -- -$CSPID 2>/dev/null; sleep 1; kill -KILL -- -$CSPID 2>/dev/null; rm -rf "$RUN"
else
  echo "devhost test rc=$rc (code-server log and user data kept in $RUN)"
fi
exit $rc
