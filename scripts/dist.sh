#!/usr/bin/env bash
# Packages the desktop app (docs/desktop.md, "Packaging"): builds out/, installs the bundled models
# when their installer is present, and runs electron-builder for this platform's targets (Linux:
# AppImage and deb; macOS: dmg; Windows: nsis), or the ones given, e.g. `npm run dist -- --linux deb`.
# electron-builder rebuilds the native modules in node_modules for Electron's ABI; afterwards they
# are rebuilt for Node again, so the tests and the command line keep working in this checkout.
# Needs the Electron binary (and the network for the Electron headers), so it is not in the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
restore_node_modules() { npm rebuild better-sqlite3 >/dev/null; }
trap restore_node_modules EXIT
npm run build
if [ -f scripts/install-models.sh ]; then bash scripts/install-models.sh; fi
npx electron-builder --config electron-builder.config.mjs "$@"
