#!/usr/bin/env bash
# The server benchmark of BENCHMARKS.md: gerbil and llama-server on the same GGUF, one after the other on the
# same port and GPU, each measured twice (A B A B), with tools/bench_server.py.
#   bash tools/bench_server_peer.sh <gerbil binary> <llama-server binary> <model.gguf> [bench_server.py args...]
# Defaults: 32 slots each, --concurrency 1,8,32 --rounds 3 (128 tokens per request, greedy, streamed).
# Long shared prompts and the prefix cache: ... --context-words 800 --max-tokens 32 (add --cold for prompts that
# share nothing); NO_PREFIX_CACHE_TOO=1 also runs gerbil with --no-prefix-cache.
set -euo pipefail
gerbil=$1 llama=$2 model=$3
shift 3
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--concurrency 1,8,32 --rounds 3)
here=$(cd "$(dirname "$0")" && pwd)
config=$(mktemp --suffix .toml)
trap 'rm -f "$config"' EXIT
# Text only: the speech models would share the GPU and the start-up time.
printf 'stt_models = []\nvoices = []\n[limits]\nmax_slots = 32\n' > "$config"
run() {
  local name=$1; shift
  "$@" > "/tmp/bench-$name.log" 2>&1 &
  local pid=$!
  for _ in $(seq 600); do
    curl -sf localhost:8080/v1/models > /dev/null && break
    kill -0 "$pid" 2> /dev/null || { echo "$name did not start: see /tmp/bench-$name.log"; exit 1; }
    sleep 0.5
  done
  echo "== $name"
  python3 "$here/bench_server.py" --model smol "${args[@]}"
  kill "$pid"; wait "$pid" 2> /dev/null || true
  sleep 1
}
for round in 1 2; do
  run "gerbil-$round" "$gerbil" serve --config "$config" --model "$model" --served-model-name smol
  if [ "${NO_PREFIX_CACHE_TOO:-0}" = 1 ]; then
    run "gerbil-no-prefix-cache-$round" "$gerbil" serve --config "$config" --model "$model" --served-model-name smol \
      --no-prefix-cache
  fi
  run "llama-server-$round" "$llama" -m "$model" -np 32 -c 65536 -ngl 99 --port 8080 -a smol
done
