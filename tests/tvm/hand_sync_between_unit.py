# The same with one iteration per prologue step (max stage 1): the prologue is a unit loop.
S = alloc([1])
U = alloc([1])
for i in range(8):
    S[0] = A[i]
    D[i] = E[i] * 2
    U[0] = B[i]
    C[i] = S[0] + U[0]
sch.annotate(i, "software_pipeline_stage", [0, 1, 0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [0])
