#!/usr/bin/env bash
# Mutation testing (cargo-mutants, configured in .cargo/mutants.toml) over FILE... (default: every
# file the config examines); arguments after `--` add test targets to the config's fast ones (for code
# only an integration test reaches: `-- --test voice_families`). MUTANTS_IN_PLACE=1 mutates this
# checkout and reuses its target/ (much faster; leave the tree alone meanwhile). Then one table row
# per file for TESTING.md:
#   | file | mutants | caught | missed | unviable | timeouts | caught of viable | commit |
# and the missed mutants, each one a test to write or an equivalent to exclude with its reason.
# Installs cargo-mutants where missing. Slow (each mutant rebuilds the crate): run it on what you change.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null || cargo install --locked cargo-mutants
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/gerbil-xdg}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
# cargo-mutants adds `--file` globs to the config's examine_globs instead of narrowing them, so for
# chosen files the config's other settings are passed as flags and the config itself is not read.
extra=()
files=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; extra=("$@"); break; fi
  files+=("$1"); shift
done
args=()
if [ ${#files[@]} -gt 0 ]; then
  mapfile -t args < <(python3 - "${files[@]}" <<'PY'
import sys, tomllib
c = tomllib.load(open(".cargo/mutants.toml", "rb"))
print("--no-config")
for f in sys.argv[1:]:
    print("--file"); print(f)
for r in c.get("exclude_re", []):
    print("--exclude-re"); print(r)
for a in c.get("additional_cargo_args", []):
    print(f"--cargo-arg={a}")
print(f"--timeout-multiplier={c['timeout_multiplier']}")
print(f"--minimum-test-timeout={c['minimum_test_timeout']}")
PY
  )
fi
[ -z "${MUTANTS_IN_PLACE:-}" ] || args+=(--in-place)
# Build and test the named targets only (each mutant rebuilds what its tests need, nothing more).
for a in "${extra[@]}"; do args+=("--cargo-arg=$a"); done
out="${MUTANTS_OUT:-target/mutants}"
mkdir -p "$out"
# Exit status 2 (mutants missed) and 3 (timeouts) are results, which the table below lists.
rc=0
cargo mutants --no-shuffle --output "$out" "${args[@]}" || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 2 ] && [ "$rc" -ne 3 ]; then exit "$rc"; fi
python3 - "$out/mutants.out/outcomes.json" "$(git rev-parse --short HEAD)" <<'PY'
import collections, json, sys
outcomes = json.load(open(sys.argv[1]))["outcomes"]
rows = collections.defaultdict(collections.Counter)
missed = []
for o in outcomes:
    scenario = o.get("scenario")
    if not isinstance(scenario, dict) or "Mutant" not in scenario:
        continue  # the baseline (unmutated) build and test
    m = scenario["Mutant"]
    kind = {"CaughtMutant": "caught", "MissedMutant": "missed", "Unviable": "unviable", "Timeout": "timeout"}.get(
        o.get("summary"), str(o.get("summary")))
    rows[m["file"]][kind] += 1
    if kind == "missed":
        line = m.get("span", {}).get("start", {}).get("line", "?")
        missed.append(f'{m["file"]}:{line}: {m.get("name") or m.get("replacement") or m}')
print("| file | mutants | caught | missed | unviable | timeouts | caught of viable | commit |")
print("|---|---|---|---|---|---|---|---|")
for f, c in sorted(rows.items()):
    viable = c["caught"] + c["missed"] + c["timeout"]
    # A mutant that hangs the tests is caught too: the timeout is the failure.
    share = f'{100 * (c["caught"] + c["timeout"]) / viable:.0f}%' if viable else "-"
    print(f'| {f} | {sum(c.values())} | {c["caught"]} | {c["missed"]} | {c["unviable"]} | {c["timeout"]} | {share} | {sys.argv[2]} |')
if missed:
    print("\nmissed:")
    print("\n".join(missed))
PY
