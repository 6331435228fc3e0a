#!/usr/bin/env bash
# pocketsphinx 5.1.1, the best of the cpu lane's decoders (docs/transcription.md "pocketsphinx"),
# into the project-local .venv-engines (shared with other engines' installers: an existing venv is
# kept and added to). Idempotent. Where the wheel cannot be had, the engine's preflight falls back to
# Debian's pocketsphinx_continuous (scripts/install-system-packages.sh), so this never fails the install.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv="${BACKLOT_ENGINES_VENV:-.venv-engines}"
want="5.1.1"
python=""
for candidate in python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1; then python="$candidate"; break; fi
done
if [ -z "$python" ]; then
  echo "pocketsphinx: no python3 here; the engine will use Debian's pocketsphinx_continuous."
  exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv" || { echo "pocketsphinx: could not create $venv; the engine will use Debian's pocketsphinx_continuous."; exit 0; }
fi
have="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("pocketsphinx"))' 2>/dev/null || true)"
if [ "$have" = "$want" ] && "$venv/bin/python" -c 'import pocketsphinx; pocketsphinx.Decoder' >/dev/null 2>&1; then
  echo "pocketsphinx $want present in $venv."
  exit 0
fi
if "$venv/bin/python" -m pip install --quiet --no-deps "pocketsphinx==$want" >/dev/null 2>&1 \
  && "$venv/bin/python" -c 'import pocketsphinx; pocketsphinx.Decoder' >/dev/null 2>&1; then
  echo "pocketsphinx $want installed in $venv."
else
  echo "pocketsphinx: the $want wheel could not be installed; the engine will use Debian's pocketsphinx_continuous."
fi
