#!/usr/bin/env bash
# A short run of every fuzz target (part of scripts/test.sh): each replays its committed corpus
# (fuzz/corpus/TARGET: every input a past run kept, the crashes found among them) and fuzzes on
# from it for FUZZ_SMOKE_SECONDS (15) seconds; nothing is written back. Long runs, which grow the
# corpus: scripts/fuzz.sh TARGET --time SECONDS, or scripts/fuzz-all.sh (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal || { echo "fuzz-smoke: no nightly toolchain available; skipped"; exit 0; }
fi
for target in $(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^stagecraft-fuzz$'); do
    ./scripts/fuzz.sh "$target" --time "${FUZZ_SMOKE_SECONDS:-15}" --smoke
done
