#!/usr/bin/env bash
# yt-dlp for the platform sync and download engines (docs/acquisition.md "yt-dlp itself"): Debian's
# package is years old and cannot talk to the big platforms, so a current release is installed from
# the Python package index into a project-local virtual environment, .venv-engines/, which the
# adapters prefer over a configured path and PATH. Idempotent: a working install is left as it is
# (BACKLOT_UPGRADE_ENGINES=1 asks the index for a newer release).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv-engines
python=${BACKLOT_PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
if [ -x "$venv/bin/yt-dlp" ] && "$venv/bin/yt-dlp" --version >/dev/null 2>&1 && [ "${BACKLOT_UPGRADE_ENGINES:-}" != "1" ]; then
  echo "yt-dlp $("$venv/bin/yt-dlp" --version) in $venv (present)"
  exit 0
fi
"$venv/bin/python" -m pip install --quiet --retries 0 --upgrade yt-dlp
echo "yt-dlp $("$venv/bin/yt-dlp" --version) in $venv"
