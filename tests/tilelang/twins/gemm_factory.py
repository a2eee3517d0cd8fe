# The Stagecraft twin of tests/tilelang/gemm_factory.py, written by hand: the pipelined loop of the
# block at bx = by = 0, B_shared read transposed, the schedule TileLang plans for num_stages=2.
A_shared = alloc([4, 4], scope="shared", dtype="float16")
B_shared = alloc([4, 4], scope="shared", dtype="float16")
C_local = alloc([4, 4], scope="local", dtype="float32")
C_shared = alloc([4, 4], scope="shared", dtype="float16")
for k in range(8):
    for i in range(4):
        for j in range(4):
            A_shared[i, j] = A[i, k * 4 + j]
    for i in range(4):
        for j in range(4):
            B_shared[i, j] = B[i, k * 4 + j]
    for i in range(4):
        for j in range(4):
            for l in range(4):
                C_local[i, j] = C_local[i, j] + A_shared[i, l] * B_shared[j, l]

sch.annotate(k, "software_pipeline_stage", [0, 0, 1])
sch.annotate(k, "software_pipeline_order", [0, 1, 2])
sch.annotate(k, "software_pipeline_async_stages", [0])
