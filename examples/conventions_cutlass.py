# Three stages, CUTLASS's convention: one cp.async group per k-tile, cp.async.wait_group 1, one
# barrier (docs/conventions.md). The GEMM main loop of the two other "Three stages" presets, at
# CUTLASS's kStages = 3 with 128 threads: each k-tile of A and B is copied into shared memory by
# all threads together (copy_tiles_and_advance), both operands committed as one group
# (cp_async_fence), and every thread then reads the whole tile into its fragments. CUTLASS
# issues the copies of tile k + 2 during the MMAs of tile k and only then waits for tile k + 1
# (gmem_wait: cp_async_wait<kStages - 2>() then __syncthreads(), mma_multistage.h:486-491), so
# the reads come first in the step, the copies last: the wait before the reads keeps the one
# group committed after the needed one in flight, and the barrier after it both publishes the
# tile and frees the slot the step before read. Stagecraft derives exactly that: wait 1, one
# barrier with both reasons.
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
sch.annotate(k, "software_pipeline_order", [3, 4, 0, 1, 2])
sch.annotate(k, "software_pipeline_async_stages", [0])
sch.annotate(k, "stagecraft_threads", [128])
