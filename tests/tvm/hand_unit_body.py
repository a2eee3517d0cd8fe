# A body of one step (extent 2, max stage 1): prologue, body and epilogue are single steps, and
# the synchronous statement between two async ones of stage 0 is swallowed into their commit there.
S = alloc([1])
U = alloc([1])
for i in range(2):
    S[0] = A[i]
    D[i] = E[i] * 2
    U[0] = B[i]
    C[i] = S[0] + U[0]
sch.annotate(i, "software_pipeline_stage", [0, 1, 0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [0])
