# random loop, seed 35
S0 = alloc([4])
for i in range(8):
    S0[i % 4] = A[i] + 1
    O1[i] = A[i] + 2
sch.annotate(i, "software_pipeline_stage", [3, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [1, 3])
