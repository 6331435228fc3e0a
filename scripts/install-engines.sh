#!/usr/bin/env bash
# What the media engines need beyond npm and Debian (docs/architecture.md "Installing engines"):
# each engine's installer lives in scripts/engines/ and is run here, in name order. Each one is
# idempotent and says what it did in one line.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
for installer in scripts/engines/*.sh; do
  bash "$installer"
done
