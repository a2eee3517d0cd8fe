# random loop, seed 15
S0 = alloc([3])
for i in range(N):
    S0[i % 3] = A[i, 0]
    O1[i] = A[i, 0]
sch.annotate(i, "software_pipeline_stage", [2, 3])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [2, 3])
