# random loop, seed 37
S0 = alloc([16])
S1 = alloc([4])
for i in range(8):
    S0[i % 16] = A[i, 2]
    S1[i % 4] = A[i, 0]
    S1[max(3 - i, 0)] = A[i, 0] + 3
    O1[i] = A[i, 2]
sch.annotate(i, "software_pipeline_stage", [0, 0, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
