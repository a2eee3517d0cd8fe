# The Stagecraft twin of tests/tilelang/gemm_stages1.py, written by hand: the pipelined loop of the block at
# bx = by = 0 (the kernel's T.clear and epilogue copy are outside it), each tile operation its
# element loops, the schedule TileLang plans for num_stages=1 (no terminal retiming below 2: each copy ordered right after its last reader, the GEMM).
A_shared = alloc([4, 4], scope="shared", dtype="float16")
B_shared = alloc([4, 4], scope="shared", dtype="float16")
C_local = alloc([4, 4], scope="local", dtype="float32")
for k in range(8):
    for i in range(4):
        for j in range(4):
            A_shared[i, j] = A[i, k * 4 + j]
    for i in range(4):
        for j in range(4):
            B_shared[i, j] = B[k * 4 + i, j]
    for i in range(4):
        for j in range(4):
            for l in range(4):
                C_local[i, j] = C_local[i, j] + A_shared[i, l] * B_shared[l, j]

sch.annotate(k, "software_pipeline_stage", [0, 0, 1])
sch.annotate(k, "software_pipeline_order", [1, 2, 0])
sch.annotate(k, "software_pipeline_async_stages", [0])
