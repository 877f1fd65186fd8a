#!/usr/bin/env bash
# Mutation testing (cargo-mutants, configured in .cargo/mutants.toml) over FILE... (default: every
# file the config examines), then one table row per file for TESTING.md:
#   | file | mutants | caught | missed | unviable | timeouts | caught of viable | commit |
# and the missed mutants, each one a test to write or an equivalent to exclude with its reason.
# Installs cargo-mutants where missing. Slow (each mutant rebuilds the crate): run it on what you change.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null || cargo install --locked cargo-mutants
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/gerbil-xdg}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
args=()
for f in "$@"; do args+=(--file "$f"); done
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
