# random loop, seed 18
S0 = alloc([3])
for i in range(1):
    S0[(i + 1) % 3] = A[i]
    O1[i] = A[i] + 2
sch.annotate(i, "software_pipeline_stage", [0, 2])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
