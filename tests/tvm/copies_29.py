# random loop, seed 29
S0 = alloc([4])
S1 = alloc([8])
S2 = alloc([8])
for i in range(3):
    S0[min(i + 1, 3)] = A[i]
    S1[min(i + 1, 7)] = A[i]
    S0[1] = S0[i % 4] + 3
    S2[0] = A[i]
    O1[i] = A[(i + 1) % 8] + 5
sch.annotate(i, "software_pipeline_stage", [1, 1, 2, 2, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [1, 2])
