#!/usr/bin/env bash
# Runs every benchmark and prints each figure beside its budget, as the tables of
# docs/benchmarks.md:
#   scripts/bench.sh            the core's benchmarks (divan, natively, the bench profile)
#   scripts/bench.sh --web      and the browser budgets (e2e/bench.mjs on a release build)
#   scripts/bench.sh --web-only the browser budgets and the bytes alone, not the core's benchmarks
#   scripts/bench.sh --tvm      and TVM 0.27's own pass against Stagecraft (scripts/compare-tvm.sh)
#   scripts/bench.sh --search   only the schedule search: every example natively (search_bench),
#                               then each preset in the page (e2e/bench.mjs, PARTS=search)
#   --write                     also puts each table in docs/benchmarks.md, between its markers
set -euo pipefail
cd "$(dirname "$0")/.."
web=false; tvm=false; write=false; search=false; native=true
for a in "$@"; do
    case "$a" in
        --web) web=true ;; --web-only) web=true; native=false ;; --tvm) tvm=true ;;
        --write) write=true ;; --search) search=true ;;
        *) echo "bench.sh: unknown option $a (--web, --web-only, --tvm, --search, --write)"; exit 2 ;;
    esac
done
out="$(mktemp)"; tables="$(mktemp -d)"
stamp="$(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg) at the start"
# Serves dist/ on a port of its own while the browser measures it, gzipped, as a host serves it:
# the first-load figures are of the bytes a browser downloads.
serve() {
    port="${BENCH_PORT:-8790}"
    python3 scripts/serve-dist.py "$port" dist >/dev/null 2>&1 &
    server=$!
    trap 'kill $server 2>/dev/null || true' EXIT
    for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/" >/dev/null 2>&1 && break; sleep 0.1; done
}
if $search; then
    cargo run -q --release -p stagecraft-core --example search_bench > "$tables/search"
    echo "native, $stamp" > "$tables/search.stamp"
    ./scripts/build-web.sh > /dev/null
    serve
    (cd e2e && PARTS=search STAGECRAFT_URL="http://127.0.0.1:$port/" node bench.mjs) | sed -n '/^|/p' > "$tables/search-web"
    echo "browser, $stamp" > "$tables/search-web.stamp"
    cat "$tables/search" "$tables/search-web"
    web=false; tvm=false
fi
if ! $search && $native; then
# The small transform benchmarks run in their own process: after the large ones, a fragmented heap
# would slow these allocation-bound microseconds down.
cargo bench -q -p stagecraft-core --bench explore -- transform_ 2>/dev/null >> "$out"
cargo bench -q -p stagecraft-core --bench explore -- "::example" "::synthetic_async" "::app_" "::emit_" 2>/dev/null >> "$out"
for b in interp timeline machine; do
    cargo bench -q -p stagecraft-core --bench "$b" 2>/dev/null >> "$out"
done
python3 - "$out" > "$tables/native" <<'PY'
import re, sys
# divan prints a tree: group lines carry no figures; leaf lines carry fastest │ slowest │ median │ …
# after the name (nested leaves start with │), and throughput benches add a line of items/s figures.
results, group, last = {}, None, None
def figures(text):
    """fastest │ slowest │ median │ … → the median; tree drawing before the first figure is dropped."""
    cols = [c.strip() for c in text.split("│")]
    while cols and not re.match(r"[\d.]+ ?\S+", cols[0]):
        cols.pop(0)
    return cols[2] if len(cols) > 2 else "?"
for line in open(sys.argv[1]).read().splitlines():
    m = re.match(r"^[│ ]*[├╰]─ (\S+)\s*(.*)$", line)
    if m:
        name, rest = m.group(1), m.group(2)
        if re.match(r"[\d.]+ \S+", rest.strip()) is None:
            group = name
            continue
        key = f"{group}/{name}" if line.startswith((" ", "│")) else name
        results[key] = {"median": figures(rest)}
        last = key
    elif last and "item/s" in line:
        results[last]["rate"] = figures(line)
        last = None
def us(v):
    m = re.match(r"([\d.]+)\s*(ns|µs|ms|s)$", v or "")
    return float(m.group(1)) * {"ns": 1e-3, "µs": 1, "ms": 1e3, "s": 1e6}[m.group(2)] if m else None
def row(label, key, budget_us=None, budget="", rate=None):
    r = results.get(key, {})
    value = r.get("rate" if rate else "median", "?")
    verdict = ""
    if budget_us is not None and us(value) is not None:
        verdict = "ok" if us(value) <= budget_us else "OVER"
    if rate is not None:
        m = re.match(r"([\d.]+)\s*(M|K)item/s", value)
        if m:
            verdict = "ok" if float(m.group(1)) * (1e6 if m.group(2) == "M" else 1e3) >= rate else "UNDER"
    print(f"| {label} | {value} | {budget or '—'} | {verdict} |")
print("| benchmark (native, median) | figure | budget | |")
print("|---|---|---|---|")
row("transform (parse+transform+waits) RFC (a)", "transform_example/rfc_a", 5, "5 µs")
for n in ["rfc_b", "rfc_c", "rfc_d", "rfc_e"]:
    row(f"transform {n}", f"transform_example/{n}")
row("transform synthetic 32 statements", "transform_synthetic/32")
row("transform synthetic 128 statements, 8 stages", "transform_synthetic/128", 4000, "4 ms")
for n in ["rfc_a", "rfc_b", "rfc_c", "rfc_d", "rfc_e"]:
    row(f"explore (everything) {n}", f"example/{n}", 16000, "16 ms")
row("explore synthetic 32", "synthetic_async_loop/32", 16000, "16 ms")
row("explore synthetic 128", "synthetic_async_loop/128", 16000, "16 ms")
for n in ["rfc_a", "rfc_b", "rfc_c", "rfc_d", "rfc_e"]:
    row(f"explore as the app (one target) {n}", f"app_example/{n}", 16000, "16 ms")
row("explore as the app, synthetic 32", "app_synthetic/32", 16000, "16 ms")
row("explore as the app, synthetic 128", "app_synthetic/128", 16000, "16 ms")
for t in ["ptx", "ptx-sm90", "amdgpu", "amdgpu-gfx950", "amdgpu-ir"]:
    row(f"emit {t} (nested GEMM)", f"emit_gemm/{t}")
row("interpreter, RFC (a) 10^5 iterations", "rfc_a_100k", rate=10e6, budget="10 M/s")
row("interpreter, 32-statement chain", "chain_32", rate=10e6, budget="10 M/s")
row("timeline, to the instance limit (4 statements)", "simulate_to_the_instance_limit", 16000, "16 ms")
presets = ["rfc_a_async_copy", "rfc_b_two_async_stages", "rfc_c_interleaved", "rfc_d_same_stage",
           "rfc_e_nested_gemm", "cutlass_multistage", "cdna4_interleaved"]
for bench, label in [("amdgpu", "gfx942"), ("amdgpu_gfx950", "gfx950"), ("amdgpu_ir", "AMDGPU IR"),
                     ("ptx", "sm_80"), ("ptx_sm90", "sm_90a")]:
    for n in presets:
        row(f"machine verifier, {label} kernel, {n}", f"{bench}/{n}", 10000, "10 ms")
PY
echo "native, $stamp" > "$tables/native.stamp"
cat "$tables/native"
fi
if $web; then
    ./scripts/build-web.sh > /dev/null
    ./scripts/bundle-size.sh | sed -n 's/^\(page\|worker\|total\): *\(.*\)$/| \1 | \2 |/p' \
        | sed '1i | bytes (gzipped, scripts/bundle-size.sh) | figure and budget |\n|---|---|' > "$tables/bytes"
    serve
    (cd e2e && STAGECRAFT_URL="http://127.0.0.1:$port/" node bench.mjs) | sed -n '/^|/p' > "$tables/web"
    echo "browser, $stamp" > "$tables/web.stamp"; echo "bytes, $stamp" > "$tables/bytes.stamp"
    cat "$tables/bytes" "$tables/web"
fi
if $tvm; then
    ./scripts/compare-tvm.sh | sed -n '/^|/p' > "$tables/tvm"
    echo "TVM, $stamp" > "$tables/tvm.stamp"
    cat "$tables/tvm"
fi
if $write; then
    python3 - "$tables" docs/benchmarks.md <<'PY'
import os, re, sys
tables, doc = sys.argv[1], sys.argv[2]
text = open(doc).read()
for name in ["native", "web", "bytes", "tvm", "search", "search-web"]:
    path = os.path.join(tables, name)
    if not os.path.exists(path):
        continue
    stamp = open(path + ".stamp").read().strip()
    body = f"<!-- {name}:begin -->\n_Measured {stamp.split(', ', 1)[1]}._\n\n{open(path).read().strip()}\n<!-- {name}:end -->"
    text, n = re.subn(rf"<!-- {name}:begin -->.*?<!-- {name}:end -->", lambda m: body, text, flags=re.S)
    if n != 1:
        sys.exit(f"bench.sh: docs/benchmarks.md has no <!-- {name}:begin/end --> markers")
open(doc, "w").write(text)
print(f"bench.sh: wrote {doc}")
PY
fi
