#!/usr/bin/env bash
# Install code-server 4.100.3 (= VS Code 1.100.3, the last release line that runs on node 20)
# from the npm registry only (plus Debian apt), for the extension's tests inside real VS Code.
# Adapted from shared/editor-testing/vscode/install-code-server.sh; idempotent: a finished install
# leaves DEST/.installed-<version> and a second call returns at once.
# Usage: install-code-server.sh DEST_DIR      (as root on Debian)
set -euo pipefail
DEST=${1:?usage: install-code-server.sh DEST_DIR}
CS_VERSION=${CS_VERSION:-4.100.3}
if [ -f "$DEST/.installed-$CS_VERSION" ] && [ -x "$DEST/node_modules/.bin/code-server" ]; then
  echo "code-server $CS_VERSION already installed in $DEST"; exit 0
fi

# build deps for native modules (kerberos needs gssapi.h from libkrb5-dev) + ripgrep to replace
# @vscode/ripgrep's GitHub download
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q build-essential pkg-config python3 libkrb5-dev libx11-dev libxkbfile-dev \
  libsecret-1-dev ripgrep >/dev/null

# node-gyp must use the local headers (/usr/include/node from the nodejs package) instead of
# downloading them from nodejs.org
export npm_config_nodedir=/usr
# node-pty's postinstall runs `npx node-gyp ...`; with npmrc yes=false npx refuses to fetch it
export npm_config_yes=true



mkdir -p "$DEST" && cd "$DEST"
[ -f package.json ] || npm init -y >/dev/null
# 1) fetch code-server without running its postinstall (postinstall would npm-install lib/vscode,
#    whose @vscode/ripgrep postinstall downloads rg from GitHub and fails offline)
npm install "code-server@$CS_VERSION" --ignore-scripts --no-audit --no-fund
npm rebuild argon2                        # code-server's own native dep (prebuilt download fails -> source build)

# 2) replicate code-server's postinstall.sh by hand
cd node_modules/code-server/lib/vscode
npm install --omit=dev --ignore-scripts --no-audit --no-fund
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg   # postinstall sees bin/ and skips download
npm rebuild                                # builds spdlog, node-pty, kerberos, native-watchdog, deviceid...
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
cd extensions
npm install --omit=dev --no-audit --no-fund    # typescript for built-in TS extension + trim
echo "installed: $(XDG_CONFIG_HOME="$DEST/.xdg" "$DEST/node_modules/.bin/code-server" --version 2>/dev/null | tail -1)"
touch "$DEST/.installed-$CS_VERSION"
