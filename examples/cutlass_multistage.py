# CUTLASS's multistage GEMM main loop (sm80, kStages = 4): the 128 threads of the block copy each
# k-tile of A and B into shared memory together (each thread its slice), one cp.async group per
# k-tile, and every thread then reads the whole tile into its fragments. The copies of tile k + 3
# are issued after the MMAs of tile k, as CUTLASS issues them during the warp MMAs, so the wait
# before tile k + 1 keeps kStages - 2 = 2 groups in flight, and one barrier after it both
# publishes tile k + 1 and frees the slot tile k was read from (CUTLASS's __syncthreads() after
# cp_async_wait<kStages - 2>()). Shapes are shrunk so the interpreter runs it instantly.
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

sch.annotate(k, "software_pipeline_stage", [0, 0, 3, 3, 3])
sch.annotate(k, "software_pipeline_order", [3, 4, 0, 1, 2])
sch.annotate(k, "software_pipeline_async_stages", [0])
sch.annotate(k, "stagecraft_threads", [128])
