#!/usr/bin/env bash
# A short run of every fuzz target (part of scripts/test.sh). Long runs: scripts/fuzz.sh TARGET --time S.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal || { echo "fuzz-smoke: no nightly toolchain available; skipped"; exit 0; }
fi
for target in parse explore structured url_state; do
    ./scripts/fuzz.sh "$target" --time "${FUZZ_SMOKE_SECONDS:-30}"
done
