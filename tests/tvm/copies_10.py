# random loop, seed 10
S0 = alloc([1])
for i in range(12):
    S0[max(0 - i, 0)] = A[i, 2]
    O1[i] = A[i, 0]
sch.annotate(i, "software_pipeline_stage", [0, 0])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
