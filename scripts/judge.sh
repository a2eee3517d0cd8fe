#!/usr/bin/env bash
# Runs the real assemblers on emitted code: scripts/judge.sh FILE.py...  (prints one line per
# target and file; exit status non-zero if any tool rejects or any emitter fails).
set -uo pipefail
cd "$(dirname "$0")/.."
PTXAS="${PTXAS:-}"
for c in "$PTXAS" .tools/venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas /work/.venv-ptx/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas "$(command -v ptxas || true)"; do
    [ -n "$c" ] && [ -x "$c" ] && { PTXAS="$c"; break; }
done
[ -x "$PTXAS" ] || { echo "judge: ptxas not found; run scripts/setup.sh"; exit 2; }
command -v llvm-mc-22 >/dev/null || { echo "judge: llvm-mc-22 not found; run scripts/setup.sh"; exit 2; }
bin=target/release/stagecraft
[ -x "$bin" ] || cargo build -q --release -p stagecraft-core
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail=0; ok=0
for f in "$@"; do
    b="$(basename "$f" .py)"
    check() {
        local target="$1" out="$2"; shift 2
        if ! "$bin" explore "$f" --form peeled --emit "$target" > "$out" 2> "$tmp/err"; then
            echo "FAIL $target $f: $(tail -1 "$tmp/err")"; fail=$((fail + 1)); return
        fi
        if ! "$@" > "$tmp/judge" 2>&1; then
            echo "FAIL $target $f: $(head -3 "$tmp/judge")"; fail=$((fail + 1)); return
        fi
        ok=$((ok + 1))
    }
    check ptx "$tmp/$b.ptx" "$PTXAS" -arch=sm_80 "$tmp/$b.ptx" -o "$tmp/$b.cubin"
    check ptx-sm90 "$tmp/$b.90.ptx" "$PTXAS" -arch=sm_90a "$tmp/$b.90.ptx" -o "$tmp/$b.90.cubin"
    check amdgpu "$tmp/$b.s" llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj "$tmp/$b.s" -o "$tmp/$b.o"
    check amdgpu-gfx950 "$tmp/$b.950.s" llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx950 -filetype=obj "$tmp/$b.950.s" -o "$tmp/$b.950.o"
    check amdgpu-ir "$tmp/$b.ll" sh -c "llvm-as-22 '$tmp/$b.ll' -o '$tmp/$b.bc' && opt-22 -passes=verify '$tmp/$b.bc' -o /dev/null"
done
echo "judges: $ok accepted, $fail failed"
[ "$fail" -eq 0 ]
