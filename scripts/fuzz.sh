#!/usr/bin/env bash
# Runs one fuzz target: scripts/fuzz.sh TARGET [--runs N | --time SECONDS]
# Targets: parse, explore, structured, url_state. Seeds: the examples and the golden cases.
# Prints the execution count and the number of crashes (artifacts) at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: scripts/fuzz.sh parse|explore|structured|url_state [--runs N | --time SECONDS]}"
shift
limit=(-max_total_time=60)
case "${1:-}" in
    --runs) limit=(-runs="$2") ;;
    --time) limit=(-max_total_time="$2") ;;
esac
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
[ "$target" = structured ] || cp -n examples/*.py tests/cases/*.py "fuzz/corpus/$target/" 2>/dev/null || true
[ "$target" = url_state ] && cp -n link/tests/frozen_v1_link.txt "fuzz/corpus/$target/" 2>/dev/null || true
log="$(mktemp)"
(cd fuzz && cargo +nightly fuzz run "$target" "corpus/$target" -- "${limit[@]}" -rss_limit_mb=4096 -timeout=10 \
    -artifact_prefix="artifacts/$target/" 2>&1) | tee "$log" | grep -E "^#[0-9]+ +(pulse|DONE)|Done|ERROR|panicked" || true
runs="$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' | tail -1 || true)"
# Interrupted runs print no summary: take the last status line's count.
[ -n "$runs" ] || runs="$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)"
crashes="$(find "fuzz/artifacts/$target" -type f | wc -l)"
echo "fuzz $target: ${runs:-?} executions, $crashes crash artifact(s)"
[ "$crashes" -eq 0 ]
