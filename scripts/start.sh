#!/usr/bin/env bash
# Installs and starts Backlot. The npm install never depends on downloading Electron's binary;
# afterwards the binary is fetched if it can be. With it, the desktop window opens; where it cannot
# be had (no network to its mirror, or ELECTRON_SKIP_BINARY_DOWNLOAD=1), the headless shell starts
# instead and prints the address to open in a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-packages.sh
ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci --no-audit --no-fund
bash scripts/install-engines.sh
npm run build
have_electron() {
  [ "${ELECTRON_SKIP_BINARY_DOWNLOAD:-}" != "1" ] || return 1
  npx --no-install electron --version >/dev/null 2>&1 && return 0
  # Electron's own installer fetches the binary; a machine that cannot reach it keeps the headless shell.
  timeout 300 node node_modules/electron/install.js >/dev/null 2>&1 || return 1
  npx --no-install electron --version >/dev/null 2>&1
}
if ! have_electron; then
  echo "No Electron binary here: starting the headless shell."
  exec node bin/backlot.mjs serve "$@"
fi
# The native modules were built for Node by npm ci; the desktop app needs them for Electron's ABI.
npx electron-builder install-app-deps
exec npx electron-vite preview
