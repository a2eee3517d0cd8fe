# random loop, seed 23
S0 = alloc([3])
S1 = alloc([16])
S2 = alloc([3])
S3 = alloc([16])
for i in range(N):
    if i % 2 == 1:
        S0[max(2 - i, 0)] = A[(i + 1) % 8] + 1
    S1[i + 2] = A[i] + 2
    O1[i] = S0[min(i, 2)] + S1[i + 1] + 3
    S2[max(2 - i, 0)] = S1[i] + 4
    S3[i + 2] = S2[(2 * i + 1) % 3] + S0[min(i + 1, 2)] + A[i] + 5
    O2[i] = S1[i + 1] + 6
sch.annotate(i, "software_pipeline_stage", [0, 1, 2, 2, 3, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0, 2])
