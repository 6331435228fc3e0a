#!/usr/bin/env bash
# Everything the tests need on a fresh Debian machine, then every check: install the system
# packages and the npm dependencies, lint (layer rules included), type-check, build the Electron
# bundles (main, preload, renderer), check them with electronegativity and run the whole vitest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-system-packages.sh
# The Electron binary is not needed to test (the window is tested through the headless shell in
# Chromium) and cannot be downloaded everywhere.
export ELECTRON_SKIP_BINARY_DOWNLOAD="${ELECTRON_SKIP_BINARY_DOWNLOAD:-1}"
npm ci --no-audit --no-fund
bash scripts/install-engines.sh
npm run lint
npm run typecheck
npm run build
# Electron's security checklist on the built app: electronegativity (offline) and the CSP.
npm run check:electron
npx vitest run
