#!/usr/bin/env bash
# Everything the tests need on a fresh Debian machine, then every check: install the system
# packages and the npm dependencies, lint (layer rules included), type-check, build the Electron
# bundles (main with the `backlot` command and the engine programs, preload, renderer), check them
# with electronegativity and run the whole vitest suite against that build. Each phase prints its
# time (docs/benchmarks.md "Test command").
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
phase() {
  local name=$1 start=$SECONDS
  shift
  echo "== ${name}"
  "$@"
  echo "== ${name}: $((SECONDS - start)) s (total $SECONDS s)"
}
phase "system packages" bash scripts/install-system-packages.sh
# The Electron binary is not needed to test (the window is tested through the headless shell in
# Chromium) and cannot be downloaded everywhere.
export ELECTRON_SKIP_BINARY_DOWNLOAD="${ELECTRON_SKIP_BINARY_DOWNLOAD:-1}"
phase "npm ci" npm ci --no-audit --no-fund
phase "engines" bash scripts/install-engines.sh
phase "lint" npm run lint
phase "typecheck" npm run typecheck
# Built once here; the tests run this build (test/global-setup.ts finds it current).
phase "build" npm run build
# Electron's security checklist on the built app: electronegativity (offline) and the CSP.
phase "electron checks" npm run check:electron
phase "vitest" npx vitest run
