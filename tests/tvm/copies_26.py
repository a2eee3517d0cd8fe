# random loop, seed 26
S0 = alloc([3])
S1 = alloc([4])
S2 = alloc([4])
for i in range(12):
    S0[i % 3] = A[i, 1]
    S1[i % 4] = A[i, 0]
    S2[i % 4] = A[i, 0]
    O1[i] = S2[i % 4] + S1[i % 4] + A[i, 0] + 4
sch.annotate(i, "software_pipeline_stage", [1, 2, 3, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [1, 2, 3])
