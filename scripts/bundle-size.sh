#!/usr/bin/env bash
# The bytes a browser fetches, gzipped, per file, against the budgets (docs/benchmarks.md): the page
# (HTML, JS, wasm, CSS) ≤ 300 KB, the core's worker ≤ 700 KB, everything fetched before the first
# results ≤ 1 MB. Bytes are reported, not chased: a budget exceeded is said plainly (and belongs in
# the closing note) but fails nothing, so that no finished feature waits on bytes; with --strict
# it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
strict=0
[ "${1-}" != "--strict" ] || strict=1
[ -d dist ] || { echo "bundle-size: no dist/ (run scripts/build-web.sh)"; exit 1; }
page=0; worker=0
for f in dist/*.html dist/*.js dist/*.wasm dist/*.css; do
    [ -e "$f" ] || continue
    n=$(gzip -9c "$f" | wc -c)
    case "$(basename "$f")" in
        stagecraft-worker*) worker=$((worker + n)); part=worker ;;
        *) page=$((page + n)); part=page ;;
    esac
    printf '  %-6s %-52s %8d bytes gzipped\n' "$part" "$(basename "$f")" "$n"
done
kb() { echo "scale=1; $1/1024" | bc -l; }
printf 'page:   %d bytes (%s KB) gzipped, budget 300 KB\n' "$page" "$(kb $page)"
printf 'worker: %d bytes (%s KB) gzipped, budget 700 KB\n' "$worker" "$(kb $worker)"
printf 'total:  %d bytes (%s KB) gzipped before the first results, budget 1024 KB\n' "$((page + worker))" "$(kb $((page + worker)))"
failed=0
over() { echo "bundle-size: OVER BUDGET — $1"; [ "$strict" -eq 0 ] || failed=1; }
[ "$page" -le $((300 * 1024)) ] || over "the page is $(kb $((page - 300 * 1024))) KB over 300 KB"
[ "$worker" -le $((700 * 1024)) ] || over "the worker is $(kb $((worker - 700 * 1024))) KB over 700 KB"
[ $((page + worker)) -le $((1024 * 1024)) ] || over "everything before the first results is over 1 MB"
exit "$failed"
