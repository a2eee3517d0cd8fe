#!/usr/bin/env bash
# The bytes a browser fetches, gzipped, per file, against the budgets (docs/benchmarks.md): the page
# (HTML, JS, wasm, CSS) ≤ 300 KB, the core's worker ≤ 700 KB, everything fetched before the first
# results ≤ 1 MB. Fails over any of them.
set -euo pipefail
cd "$(dirname "$0")/.."
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
ok=true
[ "$page" -le $((300 * 1024)) ] || { echo "bundle-size: the page is over its budget"; ok=false; }
[ "$worker" -le $((700 * 1024)) ] || { echo "bundle-size: the worker is over its budget"; ok=false; }
[ $((page + worker)) -le $((1024 * 1024)) ] || { echo "bundle-size: everything before the first results is over 1 MB"; ok=false; }
$ok
