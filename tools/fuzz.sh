#!/usr/bin/env bash
# Fuzzes every target (fuzz/harness.rs) for SECONDS each (default 600), JOBS at once (default: all
# cores), starting from fuzz/corpus/<target>; inputs that reach new code are merged back into
# fuzz/corpus/<target> (commit them: tests/fuzz_corpus.rs replays them), crashes land in
# fuzz/artifacts/<target>/ and make the script fail. Needs nightly Rust and cargo-fuzz
# (`rustup toolchain install nightly; cargo install cargo-fuzz`).
#
#   tools/fuzz.sh [SECONDS] [JOBS]            (GERBIL_FUZZ_TARGETS="audio_wav multipart" picks targets)
#
# One binary serves every target (fuzz_targets/any.rs, GERBIL_FUZZ_TARGET picks); `cargo +nightly
# fuzz run <target>` runs one target alone.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:-600}
jobs=${2:-$(nproc)}
KEEP_FILES=${KEEP_FILES:-40}
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
  # One allocation over 4 GiB is a crash: the decoders' buffers sized by a declared 32-bit length
  # (zeroed, so never touched past the upload's own bytes) pass; a product of declared counts
  # (MP4's tables were one) fails, as it would abort a server.
  local limits="-timeout=30 -rss_limit_mb=4096 -malloc_limit_mb=4096 -artifact_prefix=artifacts/$t/"
  GERBIL_FUZZ_TARGET=$t "$bin" -max_total_time="$secs" $limits -print_final_stats=1 "new/$t" "corpus/$t" \
    > "logs/$t.log" 2>&1 || true
  # Keep what reached new code, minimized to one input per feature set (min/), then at most
  # $KEEP_FILES of those, spread over their sizes, each at most 64 KiB, besides the seeds and
  # regression inputs: the corpus is committed, and replayed by tests/fuzz_corpus.rs.
  rm -rf "min/$t" && mkdir -p "min/$t"
  GERBIL_FUZZ_TARGET=$t "$bin" -merge=1 $limits "min/$t" "corpus/$t" "new/$t" >> "logs/$t.log" 2>&1 || true
  local small n step i=0 list="min/$t.kept"
  small=$(find "min/$t" -type f -size -65k -printf '%s %f\n' | sort -n | cut -d' ' -f2)
  n=$(echo "$small" | grep -c . || true)
  step=$(( n > KEEP_FILES ? (n + KEEP_FILES - 1) / KEEP_FILES : 1 ))
  : > "$list"
  for f in $small; do
    [ $((i % step)) -eq 0 ] && echo "$f" >> "$list"
    i=$((i + 1))
  done
  for f in corpus/"$t"/*; do
    case "$(basename "$f")" in seed-* | regression-*) ;; *) grep -qxF "$(basename "$f")" "$list" || rm -f "$f" ;; esac
  done
  while read -r f; do cp "min/$t/$f" "corpus/$t/"; done < "$list"
  echo "$t: $(grep -a -m1 -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$') runs," \
    "$(ls "corpus/$t" | wc -l) corpus files, $(ls "artifacts/$t" | wc -l) crashes"
}
export -f run_one
export bin secs KEEP_FILES
echo ${GERBIL_FUZZ_TARGETS:-$(ls corpus)} | tr ' ' '\n' | xargs -P "$jobs" -I{} bash -c 'run_one {}'
crashes=$(find artifacts -type f | wc -l)
[ "$crashes" -eq 0 ] || { echo "crashes: $(find artifacts -type f)"; exit 1; }
