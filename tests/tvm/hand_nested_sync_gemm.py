# RFC 0077's nested GEMM (examples/rfc_e_nested_gemm.py) with no async stage: the inner loop is
# pipelined first and its prologue, body and epilogue are statements of the outer pipeline.
A_shared = alloc([4, 4], scope="shared")
B_shared = alloc([4, 4], scope="shared")
A_local = alloc([4], scope="local")
B_local = alloc([4], scope="local")
C_local = alloc([4, 4], scope="local")
for k0 in range(8):
    for a in range(4):
        for b in range(4):
            A_shared[a, b] = A[a, k0 * 4 + b]
    for a in range(4):
        for b in range(4):
            B_shared[a, b] = B[k0 * 4 + a, b]
    for k1 in range(4):
        for x in range(4):
            A_local[x] = A_shared[x, k1]
        for y in range(4):
            B_local[y] = B_shared[k1, y]
        for x in range(4):
            for y in range(4):
                C_local[x, y] = C_local[x, y] + A_local[x] * B_local[y]

sch.annotate(k0, "software_pipeline_stage", [0, 0, 2, 3, 3])
sch.annotate(k0, "software_pipeline_order", [0, 1, 3, 2, 4])
sch.annotate(k1, "software_pipeline_stage", [0, 0, 1])
sch.annotate(k1, "software_pipeline_order", [0, 1, 2])
