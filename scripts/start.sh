#!/usr/bin/env bash
# Installs and starts Backlot. The npm install never depends on downloading Electron's binary;
# afterwards the binary is fetched if it can be. With it, the desktop window opens; where it cannot
# be had (no network to its mirror, or ELECTRON_SKIP_BINARY_DOWNLOAD=1), the headless shell starts
# instead and prints the address to open in a browser.
# A second start with nothing changed reuses the install and the build (docs/desktop.md "Starting
# again"): npm ci only when package-lock.json differs from the last successful install's, the build
# only when the sources differ from the last build's (scripts/build-state.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
# Inside node_modules, so npm ci (which empties it) takes the stamps with it.
INSTALL_STAMP=node_modules/.backlot-install-stamp
ABI_STAMP=node_modules/.backlot-native-abi
lock_hash() { sha256sum package-lock.json | cut -d' ' -f1; }
bash scripts/install-system-packages.sh
if [ -d node_modules ] && [ -f "$INSTALL_STAMP" ] && [ "$(cat "$INSTALL_STAMP")" = "$(lock_hash)" ]; then
  echo "Dependencies unchanged since the last install: skipping npm ci."
else
  ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci --no-audit --no-fund
  echo node > "$ABI_STAMP"
  lock_hash > "$INSTALL_STAMP"
fi
bash scripts/install-engines.sh
node scripts/build.mjs --if-stale
have_electron() {
  [ "${ELECTRON_SKIP_BINARY_DOWNLOAD:-}" != "1" ] || return 1
  npx --no-install electron --version >/dev/null 2>&1 && return 0
  # Electron's own installer fetches the binary; a machine that cannot reach it keeps the headless shell.
  timeout 300 node node_modules/electron/install.js >/dev/null 2>&1 || return 1
  npx --no-install electron --version >/dev/null 2>&1
}
if ! have_electron; then
  echo "No Electron binary here: starting the headless shell."
  # A desktop start rebuilt the native modules for Electron; Node needs its own back.
  if [ "$(cat "$ABI_STAMP" 2>/dev/null || echo node)" != node ]; then
    npm rebuild --no-audit --no-fund
    echo node > "$ABI_STAMP"
  fi
  exec node bin/backlot.mjs serve "$@"
fi
# The native modules were built for Node by npm ci; the desktop app needs them for Electron's ABI.
if [ "$(cat "$ABI_STAMP" 2>/dev/null || echo node)" != electron ]; then
  npx electron-builder install-app-deps
  echo electron > "$ABI_STAMP"
fi
exec npx electron-vite preview
