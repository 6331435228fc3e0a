#!/usr/bin/env bash
# The Debian packages Backlot's tests and media engines use: ffmpeg/ffprobe (decoding, probing),
# Chromium (the window's end-to-end test, driven by playwright-core), python3-venv (the engines'
# virtual environment: yt-dlp, pocketsphinx), espeak-ng and sox (speech made for tests and the demo
# library), pocketsphinx with its model and test recordings (the offline transcriber, real voices),
# curl (the download benchmark's reference), the compilers native addons need, and redis-server with openssl
# (the pools' transport and its TLS certificate, docs/pools.md).
set -euo pipefail
packages=(ffmpeg chromium python3 python3-venv make g++ curl espeak-ng sox pocketsphinx pocketsphinx-en-us pocketsphinx-testdata redis-server openssl)
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
