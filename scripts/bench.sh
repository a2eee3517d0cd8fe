#!/usr/bin/env bash
# Runs every benchmark (release, natively) and prints each figure beside its budget.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp)"
for b in explore interp timeline; do
    cargo bench -q -p stagecraft-core --bench "$b" 2>/dev/null | tee -a "$out" >/dev/null
done
python3 - "$out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def median(name, unit_line=False):
    # divan prints: name  fastest │ slowest │ median │ mean ...; the throughput line follows.
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if re.search(r"[─ ]" + re.escape(name) + r"\s", l):
            cols = [c.strip() for c in l.split("│")]
            if unit_line:
                cols = [c.strip() for c in lines[i + 1].split("│")]
            return cols[2] if len(cols) > 2 else "?"
    return "?"
def us(v):
    m = re.match(r"([\d.]+)\s*(ns|µs|ms|s)", v)
    if not m: return None
    x = float(m.group(1)); return x * {"ns": 1e-3, "µs": 1, "ms": 1e3, "s": 1e6}[m.group(2)]
rows = [
    ("transform RFC (a)", median("rfc_a") if False else None, None),
]
print(f"{'benchmark':<46}{'median':>14}{'budget':>14}  verdict")
def row(label, value, budget_us=None, budget_text="", higher_better=False, rate=None):
    if value is None: value = "?"
    verdict = ""
    if budget_us is not None and us(value) is not None:
        verdict = "ok" if us(value) <= budget_us else "OVER"
    if rate is not None:
        m = re.match(r"([\d.]+)\s*(M|K)item/s", value)
        if m:
            r = float(m.group(1)) * (1e6 if m.group(2) == "M" else 1e3)
            verdict = "ok" if r >= rate else "UNDER"
    print(f"{label:<46}{value:>14}{budget_text:>14}  {verdict}")
sections = text.split("Timer precision")
ex = next((s for s in sections if "transform_example" in s), "")
def med_in(section, name, nth=0):
    found = [l for l in section.splitlines() if re.search(r"[─ ]" + re.escape(name) + r"\s+\d", l)]
    if len(found) <= nth: return None
    cols = [c.strip() for c in found[nth].split("│")]
    return cols[2] if len(cols) > 2 else None
def med_after(section, header, name):
    part = section.split(header, 1)[1] if header in section else ""
    return med_in(part, name)
row("transform (parse+transform+waits) RFC (a)", med_after(ex, "transform_example", "rfc_a"), 5, "5 µs")
for n in ["rfc_b", "rfc_c", "rfc_d", "rfc_e"]:
    row(f"transform {n}", med_after(ex, "transform_example", n))
row("transform synthetic 32 stmts", med_after(ex, "transform_synthetic", "32"))
row("transform synthetic 128 stmts / 8 stages", med_after(ex, "transform_synthetic", "128"), 4000, "4 ms")
for n in ["rfc_a", "rfc_b", "rfc_c", "rfc_d", "rfc_e"]:
    row(f"explore (everything) {n}", med_after(ex, "example", n), 16000, "16 ms frame")
row("explore synthetic 32", med_after(ex, "synthetic_async_loop", "32"), 16000, "16 ms frame")
row("explore synthetic 128", med_after(ex, "synthetic_async_loop", "128"), 16000, "16 ms frame")
for t in ["ptx", "amdgpu", "amdgpu-gfx950", "amdgpu-ir"]:
    row(f"emit {t} (nested GEMM)", med_after(ex, "emit_gemm", t))
it = next((s for s in sections if "rfc_a_100k" in s), "")
for name in ["rfc_a_100k", "chain_32"]:
    lines = it.splitlines()
    for i, l in enumerate(lines):
        if re.search(r"[─ ]" + name + r"\s", l):
            thr = [c.strip() for c in lines[i + 1].split("│")]
            row(f"interpreter {name} (instances/s)", thr[2] if len(thr) > 2 else "?", None, "10 M/s", rate=10e6)
tl = next((s for s in sections if "simulate_100k" in s), "")
row("timeline 10^5 iterations", med_in(tl, "simulate_100k_iterations"), 50000, "50 ms")
PY
