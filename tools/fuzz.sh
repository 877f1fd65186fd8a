#!/usr/bin/env bash
# Fuzzes every target (fuzz/harness.rs) for SECONDS each (default 600), JOBS at once (default: all
# cores), starting from fuzz/corpus/<target>; inputs that reach new code are merged back into
# fuzz/corpus/<target> (commit them: tests/fuzz_corpus.rs replays them), crashes land in
# fuzz/artifacts/<target>/ and make the script fail. Needs nightly Rust and cargo-fuzz
# (`rustup toolchain install nightly; cargo install cargo-fuzz`).
#
#   tools/fuzz.sh [SECONDS] [JOBS]
#
# One binary serves every target (fuzz_targets/any.rs, GERBIL_FUZZ_TARGET picks); `cargo +nightly
# fuzz run <target>` runs one target alone.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:-600}
jobs=${2:-$(nproc)}
bin=${GERBIL_FUZZ_BIN:-}
if [ -z "$bin" ]; then
  cargo +nightly fuzz build -O any
  bin=target/x86_64-unknown-linux-gnu/release/any
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/xdg}
mkdir -p "$XDG_RUNTIME_DIR" logs
run_one() {
  local t=$1
  mkdir -p "new/$t" "artifacts/$t"
  GERBIL_FUZZ_TARGET=$t "$bin" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 "new/$t" "corpus/$t" > "logs/$t.log" 2>&1 || true
  GERBIL_FUZZ_TARGET=$t "$bin" -merge=1 "corpus/$t" "new/$t" >> "logs/$t.log" 2>&1 || true
  echo "$t: $(grep -a -m1 -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$') runs," \
    "$(ls "corpus/$t" | wc -l) corpus files, $(ls "artifacts/$t" | wc -l) crashes"
}
export -f run_one
export bin secs
ls corpus | xargs -P "$jobs" -I{} bash -c 'run_one {}'
crashes=$(find artifacts -type f | wc -l)
[ "$crashes" -eq 0 ] || { echo "crashes: $(find artifacts -type f)"; exit 1; }
