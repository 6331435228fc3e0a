#!/usr/bin/env bash
# The Debian packages Backlot's tests and media engines use: ffmpeg/ffprobe (real media, probing),
# Chromium (the window's end-to-end test, driven by playwright-core), the compilers that
# better-sqlite3 needs when no prebuilt binary can be downloaded, and for transcription (docs/
# transcription.md): pocketsphinx's fallback decoder and model, its LibriVox test recordings, and
# espeak-ng, which speaks the tests' media.
set -euo pipefail
packages=(ffmpeg chromium python3 python3-venv make g++ pocketsphinx pocketsphinx-en-us pocketsphinx-testdata espeak-ng)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then
  echo "System packages present: ${packages[*]}"
  exit 0
fi
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
echo "Installing: ${missing[*]}"
run apt-get update
DEBIAN_FRONTEND=noninteractive run apt-get install -y --no-install-recommends "${missing[@]}"
