#!/usr/bin/env bash
# Prints the release bundle's size (wasm + js, gzipped) against the 450 KB budget (the guide's); fails above it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d dist ] || { echo "bundle-size: no dist/ (run scripts/build-web.sh)"; exit 1; }
total=0
for f in dist/*.wasm dist/*.js; do
    n=$(gzip -9c "$f" | wc -c)
    printf '  %-48s %8d bytes gzipped\n' "$(basename "$f")" "$n"
    total=$((total + n))
done
printf 'bundle: %d bytes (%.1f KB) gzipped, budget 450 KB\n' "$total" "$(echo "$total/1024" | bc -l)"
[ "$total" -le $((450 * 1024)) ]
