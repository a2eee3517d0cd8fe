# random loop, seed 22
S0 = alloc([1])
S1 = alloc([1])
for i in range(5):
    S0[i % 1] = A[i]
    S1[i % 1] = S0[(i // 2) % 1] + 2
    O1[i] = A[i]
sch.annotate(i, "software_pipeline_stage", [0, 1, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0, 2])
