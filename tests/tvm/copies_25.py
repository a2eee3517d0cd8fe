# random loop, seed 25
S0 = alloc([4])
S1 = alloc([2])
for i in range(4):
    S0[i % 4] = A[i]
    S1[i % 2] = A[i]
    O1[i] = S1[i % 2] + 3
    O2[i] = A[i] + 4
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [0])
