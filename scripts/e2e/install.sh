#!/usr/bin/env bash
# Installs what the end-to-end tests need, when missing: Debian's chromium + ripgrep (apt) and code-server
# (npm, VS Code 1.100.3 with a plain-Node extension host) into a reusable cache outside the repo.
# usage: scripts/e2e/install.sh            (cache: $NANO_E2E_CACHE or ~/.cache/nano-coder-e2e)
# Prints the code-server binary path on its last line. Safe to run again: it does nothing when all is there.
set -euo pipefail
CACHE=${NANO_E2E_CACHE:-$HOME/.cache/nano-coder-e2e}
CS_VERSION=4.100.3   # the newest code-server whose engines.node accepts Node 20 (4.103+ wants 22)
CS_DIR=$CACHE/code-server-$CS_VERSION
CS_BIN=$CS_DIR/node_modules/.bin/code-server

export DEBIAN_FRONTEND=noninteractive
need=""
for p in chromium ripgrep libkrb5-dev pkg-config; do dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"; done
if [ -n "$need" ]; then
  echo "e2e install: apt$need" >&2
  apt-get update -q >&2 && apt-get install -y -q --no-install-recommends $need >&2
fi

if [ ! -x "$CS_BIN" ] || [ ! -f "$CS_DIR/.complete" ]; then
  echo "e2e install: code-server $CS_VERSION into $CS_DIR" >&2
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR/.tmp"
  # @vscode/ripgrep (pinned by code-server) downloads rg from GitHub unless its cache already holds the
  # tarball: seed the cache with Debian's rg.
  export TMPDIR=$CS_DIR/.tmp
  rg_cache=$TMPDIR/vscode-ripgrep-cache-1.15.11
  mkdir -p "$rg_cache"
  t=$(mktemp -d); cp /usr/bin/rg "$t/rg"
  tar czf "$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$t" rg; rm -rf "$t"
  cd "$CS_DIR"
  echo '{"name":"nano-coder-e2e-host","private":true}' > package.json
  # npm_config_yes: node-pty's install runs `npx node-gyp`, which a `yes=false` npm config refuses.
  # npm_config_unsafe_perm: code-server's postinstall insists on it when run as root.
  # npm_config_dangerously_allow_all_scripts: npm >= 11.1x skips dependency install scripts by default; code-server's
  # postinstall (and the nested `npm install` of its bundled VS Code, which builds node-pty & co.) must run. The
  # variables reach the nested npm processes too. This applies to this isolated cache folder only.
  npm_config_yes=true npm_config_unsafe_perm=true npm_config_dangerously_allow_all_scripts=true \
    npm install --no-audit --no-fund --no-save "code-server@$CS_VERSION" >&2
  # the postinstall links node_modules.asar; without it the server starts but extensions break
  [ -e node_modules/code-server/lib/vscode/node_modules.asar ] || { echo "code-server postinstall did not run" >&2; exit 1; }
  XDG_CONFIG_HOME=$TMPDIR XDG_DATA_HOME=$TMPDIR "$CS_BIN" --version >&2
  touch "$CS_DIR/.complete"
fi
echo "$CS_BIN"
