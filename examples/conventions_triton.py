# Three stages, Triton's convention: one cp.async group per load (two per k-tile), wait 2 for
# both operands, a barrier after every wait (docs/conventions.md). The same GEMM as the two
# other "Three stages" presets, as Triton's pipeliner lays out num_stages=3 on sm_80 (its own
# PTX: scripts/triton-gemm-sm80.py): loads in stage 0, local loads and the dot in stage 2, the
# reads first and the next tile's copies after them, each load its own copy and commit group
# (LowerLoops.cpp, createAsyncCopy): a tile is two groups. Stagecraft commits a run of one
# stage's copies as one group, so the MMA sits between the two copies here to give each its own;
# no commit moves relative to a wait, so the counts are Triton's. Where Stagecraft differs:
# it waits for each operand before its read, 3 before A's (B's group of the same tile may stay
# in flight: Triton's 2 there is safe, not tight) and 2 before B's, and B's wait after A's
# reads takes a second barrier. One wait 2 before both reads and one barrier, as Triton waits,
# is tight and enough here (three slots; Triton keeps two, and a third barrier before the
# refill): Stagecraft does not weigh a barrier against a group in flight.
A_smem = alloc([4, 4], scope="shared", dtype="float16", threads="cyclic")
B_smem = alloc([4, 4], scope="shared", dtype="float16", threads="cyclic")
A_frag = alloc([4, 4], scope="local", dtype="float16")
B_frag = alloc([4, 4], scope="local", dtype="float16")
accum = alloc([4, 4], scope="local")
for k in range(16):
    for m in range(4):
        for kk in range(4):
            A_smem[m, kk] = A[m, 4 * k + kk]
    for kk in range(4):
        for n in range(4):
            B_smem[kk, n] = B[4 * k + kk, n]
    for m in range(4):
        for kk in range(4):
            A_frag[m, kk] = A_smem[m, kk]
    for kk in range(4):
        for n in range(4):
            B_frag[kk, n] = B_smem[kk, n]
    for m in range(4):
        for n in range(4):
            for kk in range(4):
                accum[m, n] = fma(A_frag[m, kk], B_frag[kk, n], accum[m, n])

sch.annotate(k, "software_pipeline_stage", [0, 0, 2, 2, 2])
sch.annotate(k, "software_pipeline_order", [2, 4, 0, 1, 3])
sch.annotate(k, "software_pipeline_async_stages", [0])
sch.annotate(k, "stagecraft_threads", [128])
