#!/usr/bin/env python3
"""Prints a chain of N + 1 statements over S stages (spread evenly, every stage but the last
asynchronous) and E iterations: the heavy schedules of docs/limits.md. The same text as
`stagecraft::workloads::heavy_chain(N, S, E)` (core/src/workloads.rs, whose test pins a small one).
usage: scripts/heavy_loop.py N S [E]   (default E = 64)"""
import sys

n, stages = int(sys.argv[1]), int(sys.argv[2])
extent = int(sys.argv[3]) if len(sys.argv) > 3 else 64
lines = [f"T{k} = alloc([1])" for k in range(n)]
lines.append(f"for i in range({extent}):")
for k in range(n):
    source = f"T{k - 1}[0]" if k > 0 else "A[i]"
    lines.append(f"    T{k}[0] = {source} + 1")
lines.append(f"    O[i] = T{n - 1}[0] + 1")
stage = [min(stages, k * (stages + 1) // (n + 1)) for k in range(n + 1)]
lines.append(f'sch.annotate(i, "software_pipeline_stage", {stage})')
lines.append(f'sch.annotate(i, "software_pipeline_order", {list(range(n + 1))})')
lines.append(f'sch.annotate(i, "software_pipeline_async_stages", {sorted(set(stage))[:-1]})')
print("\n".join(lines))
