# random loop, seed 7
S0 = alloc([4])
for i in range(12):
    S0[i % 4] = A[i]
    O1[i] = A[i]
sch.annotate(i, "software_pipeline_stage", [1, 2])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [1, 2])
