#!/usr/bin/env bash
# The speaker engines' bundled models (vosk-model-spk-0.4, Silero VAD): scripts/install-models.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/install-models.sh
