#!/usr/bin/env bash
# Every fuzz target in turn for SECONDS each (default 1800), each run merged into its committed
# corpus and added to docs/fuzzing.md's table (scripts/fuzz.sh). Commit fuzz/ and docs/fuzzing.md
# afterwards. Runs at nice 10 so that a machine shared with builds stays usable.
#
#   scripts/fuzz-all.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-1800}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v '^stagecraft-fuzz$')
failed=()
for target in "${targets[@]}"; do
    nice -n 10 ./scripts/fuzz.sh "$target" --time "$seconds" || failed+=("$target")
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz-all: crashes in ${failed[*]} (fuzz/artifacts/)"; exit 1; }
