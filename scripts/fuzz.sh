#!/usr/bin/env bash
# Runs one fuzz target from where the last run ended and keeps what it found:
#
#   scripts/fuzz.sh TARGET [--time SECONDS | --runs N] [--smoke]
#
# The run reads the committed corpus fuzz/corpus/TARGET and the seeds made from the repository's
# inputs (scripts/fuzz-seeds.py); afterwards corpus, seeds and new finds are minimized together
# (libFuzzer's merge, as `cargo fuzz cmin`) back into fuzz/corpus/TARGET, and the run is added to
# fuzz/runs.tsv, from which docs/fuzzing.md's table of cumulative executions is written. With
# --smoke (scripts/fuzz-smoke.sh, in CI) nothing is written back: the run replays the corpus and
# fuzzes on from it. Prints the executions and the crashes; fails on a crash.
#
# Targets: parse explore structured url_state link_layers tvmscript tilelang tokens check request.
# A crash is saved in fuzz/artifacts/TARGET/; reproduce it with
#   (cd fuzz && cargo +nightly fuzz run -s none -a TARGET artifacts/TARGET/crash-…)
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/fuzz.sh TARGET [--time SECONDS | --runs N] [--smoke]"
target="${1:?$usage}"
shift
limit=(-max_total_time=60)
smoke=0
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) limit=(-runs="$2"); shift 2 ;;
        --time) limit=(-max_total_time="$2"); shift 2 ;;
        --smoke) smoke=1; shift ;;
        *) echo "$usage" >&2; exit 2 ;;
    esac
done
grep -q "^name = \"$target\"$" fuzz/Cargo.toml || { echo "fuzz: no target $target in fuzz/Cargo.toml" >&2; exit 2; }
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal

# No sanitizer: the code fuzzed is safe Rust (the one `unsafe` of core, its native allocator, is not
# linked into a fuzz target), so AddressSanitizer would only slow each execution down; debug
# assertions on, so that an arithmetic overflow is a crash rather than a wrong answer.
fuzz=(cargo +nightly fuzz run --sanitizer none --debug-assertions "$target")
corpus="fuzz/corpus/$target"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$corpus" "fuzz/artifacts/$target" "$work/new" "$work/seeds" "$work/merged"
# The seeds (what they add is in the corpus after a run; a smoke run replays the corpus alone).
[ "$smoke" -eq 1 ] || python3 scripts/fuzz-seeds.py "$target" "$work/seeds" >/dev/null
# Memory: a reader that asks for more than this for a page-sized input is a finding. Time: so is
# one input that runs for longer than this.
options=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=20 -print_final_stats=1
    -artifact_prefix="$PWD/fuzz/artifacts/$target/")
before="$(find "fuzz/artifacts/$target" -type f ! -name 'slow-unit-*' | wc -l)"
# Built first, so that the time written to runs.tsv is the fuzzing's alone (`run` then finds
# nothing to rebuild).
(cd fuzz && cargo +nightly fuzz build --sanitizer none --debug-assertions "$target" 2>&1 | tail -1)
start="$(date +%s)"
# New finds go to the first directory (a scratch one); the corpus and the seeds are read.
(cd fuzz && "${fuzz[@]}" "$work/new" "$PWD/../$corpus" "$work/seeds" -- "${limit[@]}" "${options[@]}" 2>&1) \
    >"$work/log" || true
seconds=$(($(date +%s) - start))
grep -E "^#[0-9]+ +(INITED|DONE)|Done [0-9]+ runs|ERROR|panicked|SUMMARY" "$work/log" || true
runs="$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$work/log" | grep -Eo '[0-9]+$' | tail -1 || true)"
# A run that stopped on a crash prints no final statistics: take the last status line's count.
[ -n "$runs" ] || runs="$(grep -Eo '^#[0-9]+' "$work/log" | tail -1 | tr -d '#' || true)"
runs="${runs:-0}"
crashes=$(($(find "fuzz/artifacts/$target" -type f ! -name 'slow-unit-*' | wc -l) - before))
if [ "$crashes" -gt 0 ]; then
    grep -B2 -A30 -E "panicked|ERROR: libFuzzer" "$work/log" | head -60 || true
fi

if [ "$smoke" -eq 0 ]; then
    # Corpus, seeds and finds minimized together into the committed corpus, by the edges they
    # cover (not how often each runs, which would keep three times the files): a run starts from
    # every edge any run has reached, and finds its counts again.
    (cd fuzz && "${fuzz[@]}" "$work/merged" "$PWD/../$corpus" "$work/new" "$work/seeds" -- \
        -merge=1 -use_counters=0 "${options[@]}" >"$work/merge.log" 2>&1) || { tail -20 "$work/merge.log"; exit 1; }
    rm -rf "$corpus"
    mv "$work/merged" "$corpus"
    files="$(find "$corpus" -type f | wc -l)"
    bytes="$(du -sb "$corpus" | cut -f1)"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$(git rev-parse --short HEAD)" \
        "$target" "$runs" "$seconds" "$crashes" "$files" "$bytes" >>fuzz/runs.tsv
    python3 scripts/fuzz-table.py
    echo "fuzz $target: $runs executions in $seconds s, $crashes crash(es); corpus $files files, $bytes bytes"
else
    echo "fuzz $target: $runs executions in $seconds s, $crashes crash(es) (smoke: corpus not written)"
fi
[ "$crashes" -eq 0 ]
