# random loop, seed 14
S0 = alloc([4])
S1 = alloc([16])
S2 = alloc([4])
S3 = alloc([4])
for i in range(12):
    S0[0] = A[i]
    if i % 2 == 0:
        S0[min(i, 3)] = S0[i % 4] + S0[0] + 2
    S1[i + 1] = S1[i + 1] + S0[(2 * i + 2) % 4] + 3
    S2[i % 4] = A[i]
    S3[min(i, 3)] = S2[min(i + 1, 3)] + 5
    O1[i] = A[i]
sch.annotate(i, "software_pipeline_stage", [0, 0, 1, 1, 2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0, 1, 2])
