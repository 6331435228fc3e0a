#!/usr/bin/env bash
# Installs and starts Backlot. With an Electron binary it opens the desktop window; where Electron
# cannot be downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD=1) it starts the headless shell instead and
# prints the address to open in a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-packages.sh
npm ci --no-audit --no-fund
bash scripts/install-models.sh
npm run build
if [ "${ELECTRON_SKIP_BINARY_DOWNLOAD:-}" = "1" ] || ! npx --no-install electron --version >/dev/null 2>&1; then
  echo "No Electron binary here: starting the headless shell."
  exec node bin/backlot.mjs serve "$@"
fi
exec npx electron-vite preview
