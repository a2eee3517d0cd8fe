# random loop, seed 38
S0 = alloc([4])
for i in range(6):
    S0[min(i + 1, 3)] = A[i, 3]
    O1[i] = A[i, 0]
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
