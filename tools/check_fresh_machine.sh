#!/usr/bin/env bash
# A new user's first minute, checked by hand (too slow for CI): in a clean Debian bookworm root that
# holds only a C compiler and this machine's Rust toolchain (no pkg-config, no cmake, no -dev
# packages), `cargo build --release` must succeed, the binary must not link a system libopus or
# libespeak-ng, and `gerbil serve` with an empty HOME (nothing cached) must answer a chat completion,
# a speech request and a transcription of the speech it made, all on its built-in defaults.
# Only the Vulkan loader and a driver (Mesa's software Vulkan here) are added before running.
#   usage: sudo bash tools/check_fresh_machine.sh        (needs debootstrap; ~15 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
R=${ROOT:-/tmp/gerbil-fresh-root}
PORT=8097
RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
TOOLCHAIN=$(rustup show active-toolchain | cut -d' ' -f1)

command -v debootstrap >/dev/null || { apt-get update -q && apt-get install -y -q debootstrap; }
[ -x "$R/bin/sh" ] || debootstrap --variant=minbase --include=gcc,libc6-dev,ca-certificates,curl \
  bookworm "$R" http://deb.debian.org/debian
for bad in pkg-config cmake libopus-dev libespeak-ng-dev; do
  if chroot "$R" dpkg -s "$bad" >/dev/null 2>&1; then echo "FAIL: $bad is in the fresh root"; exit 1; fi
done
# The Rust toolchain, as rustup would have installed it (the machine's own, copied).
mkdir -p "$R/root/.rustup/toolchains" "$R/root/.cargo/bin"
cp -a "$RUSTUP_HOME/toolchains/$TOOLCHAIN" "$R/root/.rustup/toolchains/"
for t in cargo rustc; do ln -sf "/root/.rustup/toolchains/$TOOLCHAIN/bin/$t" "$R/root/.cargo/bin/$t"; done
cp /etc/resolv.conf "$R/etc/resolv.conf"
# This machine's CA bundle too, for networks behind a TLS-inspecting proxy.
cp /etc/ssl/certs/ca-certificates.crt "$R/etc/ssl/certs/ca-certificates.crt"
rm -rf "$R/src" && mkdir -p "$R/src"
git ls-files -z | xargs -0 cp --parents -t "$R/src"
mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
trap 'pkill -f "gerbil serve --listen 127.0.0.1:$PORT" || true; umount "$R/proc" || true' EXIT
in_root() { chroot "$R" /usr/bin/env -i PATH=/root/.cargo/bin:/usr/local/bin:/usr/bin:/bin HOME=/root "$@"; }

echo "== cargo build --release (fresh root: gcc + Rust only)"
in_root sh -c 'cd /src && cargo build --release --locked --bin gerbil'
echo "== linked libraries"
in_root ldd /src/target/release/gerbil | tee /tmp/gerbil-fresh-ldd.txt
if grep -Eq 'libopus|libespeak' /tmp/gerbil-fresh-ldd.txt; then echo "FAIL: links a system libopus/libespeak-ng"; exit 1; fi

echo "== no Vulkan loader yet: serve must say what to install"
in_root sh -c 'HOME=/tmp/empty-home-0 timeout 120 /src/target/release/gerbil serve --listen 127.0.0.1:'$PORT' 2>&1 | tail -n 5' \
  | tee /tmp/gerbil-fresh-novulkan.txt || true
grep -q "libvulkan" /tmp/gerbil-fresh-novulkan.txt || { echo "FAIL: no word about the missing Vulkan loader"; exit 1; }

echo "== the Vulkan loader + software Vulkan, then serve on the defaults with an empty cache"
in_root sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libvulkan1 mesa-vulkan-drivers' >/dev/null
rm -rf "$R/tmp/empty-home" && mkdir -p "$R/tmp/empty-home" "$R/tmp/xdg"
in_root sh -c 'HOME=/tmp/empty-home XDG_RUNTIME_DIR=/tmp/xdg RUST_LOG=info /src/target/release/gerbil serve --listen 127.0.0.1:'$PORT \
  > /tmp/gerbil-fresh-serve.log 2>&1 &
for _ in $(seq 1200); do curl -sf "localhost:$PORT/ready" >/dev/null && break; sleep 1; done
curl -sf "localhost:$PORT/ready"; echo
grep -E "ready on|loaded" /tmp/gerbil-fresh-serve.log || true
echo "== chat"
curl -sf "localhost:$PORT/v1/chat/completions" -H 'Content-Type: application/json' \
  -d '{"model": "HuggingFaceTB/SmolLM2-135M-Instruct", "messages": [{"role": "user", "content": "What is the capital of France?"}], "max_tokens": 24}'
echo
echo "== speech (tts-1, alloy)"
curl -sf "localhost:$PORT/v1/audio/speech" -H 'Content-Type: application/json' \
  -d '{"model": "tts-1", "voice": "alloy", "input": "The quick brown fox jumps over the lazy dog.", "response_format": "wav"}' \
  -o /tmp/gerbil-fresh-speech.wav
ls -l /tmp/gerbil-fresh-speech.wav
echo "== transcription of that speech (whisper-1)"
curl -sf "localhost:$PORT/v1/audio/transcriptions" -F model=whisper-1 -F file=@/tmp/gerbil-fresh-speech.wav \
  | tee /tmp/gerbil-fresh-transcript.json
echo
grep -qi "fox" /tmp/gerbil-fresh-transcript.json && echo "PASS: fresh machine builds and serves all three endpoints"
