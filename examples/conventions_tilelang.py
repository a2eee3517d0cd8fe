# Three stages, TileLang's convention: one group per k-tile, wait 2, a barrier after the wait and
# a hazard barrier before the copies (docs/conventions.md). The same GEMM as the two other
# "Three stages" presets, as TileLang plans a T.Pipelined loop with num_stages=3: the copies in
# stage 0, the reads (T.gemm's shared-to-register half) and the MMA in stage 2, in body order
# — the copies of tile k + 2 first, then the reads of tile k (pipeline_planning.cc, docs/
# tilelang.md). T.gemm reads both tiles: one group (pipeline_planning.cc:879-890). The wait
# sits after this step's commit, so it keeps two groups in flight (inject_pipeline.cc:2662-2700:
# the producer's newest iteration minus the consumer's, in groups); TileLang syncs after every
# cp.async.wait_group (thread_storage_sync.cc:58-75) and before a write into shared memory a
# read before it conflicts with, across iterations too (thread_storage_sync.cc:1380-1410): the
# copies refill the slot the step before read, and nothing between that read and them is a
# barrier. Stagecraft derives the same: wait 2 and two barriers, each with its reason.
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
sch.annotate(k, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(k, "software_pipeline_async_stages", [0])
sch.annotate(k, "stagecraft_threads", [128])
