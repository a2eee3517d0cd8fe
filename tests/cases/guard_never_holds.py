# The store a GEMM makes after its loop, guarded by one past its last iteration: `k == 8` holds at
# no iteration of `range(8)`. Still a valid program (its store never runs), so it is pipelined and
# verified, with a warning and the last iteration in its hint.
A_sh = alloc([16], scope="shared")
acc = alloc([1], scope="local")
for k in range(8):
    for j in range(16):
        A_sh[j] = A[16 * k + j]
    for j in range(16):
        acc[0] += A_sh[j]
    if k == 8:
        C[0] = acc[0]
sch.annotate(k, "software_pipeline_stage", [0, 1, 1])
sch.annotate(k, "software_pipeline_order", [0, 1, 2])
sch.annotate(k, "software_pipeline_async_stages", [0])
