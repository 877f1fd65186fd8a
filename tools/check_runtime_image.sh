#!/usr/bin/env bash
# Checks the Dockerfile's runtime stage without a Docker engine (for hosts with none, or no access to Docker Hub):
# debootstrap a Debian bookworm root with exactly the runtime stage's packages, copy a release gerbil in,
# run `gerbil serve` in a chroot on software Vulkan and ask it for a chat completion.
#   usage: sudo bash tools/check_runtime_image.sh /path/to/model.gguf   (after cargo build --release)
set -euo pipefail
MODEL=${1:?a GGUF model file}
R=${ROOT:-/tmp/gerbil-rootfs}
PKGS=$(sed -n '/^FROM debian/,$p' Dockerfile | sed -n 's/.*--no-install-recommends//p;s/^ *\(lib[^&]*\)\\$/\1/p' \
  | tr -d '\\' | tr ' ' '\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' | sort -u | paste -sd, -)
echo "runtime packages: $PKGS"
[ -x "$R/bin/sh" ] || debootstrap --variant=minbase --include="$PKGS" bookworm "$R" http://deb.debian.org/debian
install -D target/release/gerbil "$R/usr/local/bin/gerbil"
install -D "$MODEL" "$R/models/model.gguf"
mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
trap 'pkill -f "gerbil serve --listen 127.0.0.1:8099" || true; umount "$R/proc" || true' EXIT
chroot "$R" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin XDG_RUNTIME_DIR=/tmp HOME=/root RUST_LOG=warn \
  gerbil serve --listen 127.0.0.1:8099 --model /models/model.gguf &
for _ in $(seq 180); do curl -sf localhost:8099/ready >/dev/null && break; sleep 1; done
curl -sf localhost:8099/v1/chat/completions -H 'Content-Type: application/json' \
  -d '{"model": "/models/model.gguf", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 8}'
echo
