#!/usr/bin/env python3
"""Triton's own synchronization of a GEMM main loop at num_stages=3 on sm_80 (docs/conventions.md).

Compiles a 128x128x32 fp16 GEMM tile loop for sm_80 with 4 warps and num_stages=3 — no GPU is
needed: Triton lowers to PTX for the target it is given — and prints, from Triton's own output,
the shared buffers per operand, the commit groups per k-tile and, in the order they come in the
PTX main loop, its cp.async.wait_group counts, commits and bar.sync barriers.

    python3 -m venv /tmp/triton-venv && /tmp/triton-venv/bin/pip install triton
    /tmp/triton-venv/bin/python scripts/triton-gemm-sm80.py
"""
import re

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m = tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * BN + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(c_ptr + offs_m[:, None] * BN + offs_n[None, :], acc)


def main():
    aligned = [["tt.divisibility", 16]]
    src = ASTSource(
        fn=gemm,
        signature={"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "K": "i32"},
        constexprs={"BM": 128, "BN": 128, "BK": 32},
        attrs={(0,): aligned, (1,): aligned, (2,): aligned, (3,): aligned},
    )
    kernel = triton.compile(
        src, target=GPUTarget("cuda", 80, 32), options={"num_stages": 3, "num_warps": 4}
    )
    ttgir, ptx = kernel.asm["ttgir"], kernel.asm["ptx"]
    print(f"triton {triton.__version__}, sm_80, num_stages=3, num_warps=4")
    for shape in re.findall(r"ttg\.local_alloc : \(\) -> !ttg\.memdesc<(\d+)x(\d+x\d+)", ttgir):
        print(f"shared buffer: {shape[0]} slots of {shape[1]}")
    body = ttgir[ttgir.index("scf.for") :]
    body = body[: body.index("scf.yield")]
    print(f"commit groups per k-tile: {body.count('ttg.async_commit_group')}")
    lines = ptx.splitlines()
    head = next(i for i, l in enumerate(lines) if "Inner Loop Header" in l)
    back = next(i for i in range(head, len(lines)) if re.search(r"\bbra\b.*" + re.escape(lines[head].split(":")[0]), lines[i]))
    print(f"PTX main loop, lines {head + 1}-{back + 1}:")
    for i in range(head, back + 1):
        l = lines[i].strip()
        if l.startswith(("cp.async.wait_group", "cp.async.commit_group", "bar.sync")):
            print(f"  {i + 1}: {l}")


if __name__ == "__main__":
    main()
