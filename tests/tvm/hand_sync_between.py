# A synchronous statement of another stage between two async statements of stage 0 that nothing
# consumes in between: TVM's commit group lists them as one group, which its emitter reads as a run.
S = alloc([1])
U = alloc([1])
for i in range(8):
    S[0] = A[i]
    D[i] = E[i] * 2
    U[0] = B[i]
    C[i] = S[0] + U[0]
sch.annotate(i, "software_pipeline_stage", [0, 1, 0, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [0])
