# RFC 0077, example (d) in its nested-GEMM form: the RFC's "mistaken" stages [0, 0, 0, 3, 3] put
# the inner pipeline's prologue (a consumer of the async copies) in the copies' stage, three outer
# iterations ahead of the inner body that reads what it loads. It waits for the copies at once, and
# A_local / B_local need a copy per outer iteration in flight: 4 versions, each the inner pipeline's
# 2-slot ring (TVM 0.27 versions them the same way).
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

sch.annotate(k0, "software_pipeline_stage", [0, 0, 0, 3, 3])
sch.annotate(k0, "software_pipeline_order", [0, 1, 3, 2, 4])
sch.annotate(k0, "software_pipeline_async_stages", [0])
sch.annotate(k1, "software_pipeline_stage", [0, 0, 1])
sch.annotate(k1, "software_pipeline_order", [0, 1, 2])
