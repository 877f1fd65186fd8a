#!/usr/bin/env bash
# Builds the peer the benchmarks compare against: llama.cpp's llama-server and llama-bench (CUDA) from the
# vendor/llama.cpp of the llama-cpp-python==0.3.36 sdist on PyPI, the same source everywhere.
#   bash tools/build_llama_cpp.sh [out-dir]      (default ~/.cache/gerbil-peer; needs cmake, nvcc, a C++ compiler)
# Offline: put llama_cpp_python-0.3.36.tar.gz in the out-dir first. Then, for example:
#   <out-dir>/llama.cpp/b/bin/llama-server -m model.gguf -np 32 -c 65536 -ngl 99 --port 8080 -a smol
#   <out-dir>/llama.cpp/b/bin/llama-bench -m model.gguf -p 16,1000 -n 128 -ngl 99
set -euo pipefail
out=${1:-$HOME/.cache/gerbil-peer}
arch=${CUDA_ARCH:-90}
mkdir -p "$out"
cd "$out"
sdist=llama_cpp_python-0.3.36.tar.gz
if [ ! -f "$sdist" ]; then
  # pip download of an sdist runs its build backend to read the metadata; the simple index gives the file as is.
  url=$(curl -fsSL https://pypi.org/simple/llama-cpp-python/ | grep -o "https://[^\"#]*/$sdist" | head -1)
  curl -fsSLo "$sdist" "$url"
fi
if [ ! -d llama.cpp ]; then
  tar xzf "$sdist" llama_cpp_python-0.3.36/vendor/llama.cpp
  mv llama_cpp_python-0.3.36/vendor/llama.cpp . && rm -rf llama_cpp_python-0.3.36
fi
cd llama.cpp
# No web UI (it would be fetched from the hub), no curl/openssl: the peer serves the same files gerbil does.
cmake -B b -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_BUILD_TYPE=Release \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
cmake --build b -j"$(nproc)" --target llama-server llama-bench
ls -l b/bin/llama-server b/bin/llama-bench
