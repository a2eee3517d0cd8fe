# random loop, seed 3
S0 = alloc([1])
for i in range(4):
    S0[(0 if i % 2 == 0 else 0)] = A[i]
    O1[i] = A[i]
sch.annotate(i, "software_pipeline_stage", [0, 0])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
