# random loop, seed 19
S0 = alloc([1])
S1 = alloc([16])
S2 = alloc([4])
S3 = alloc([8])
S4 = alloc([1])
for i in range(10):
    S0[(i // 2) % 1] = A[i]
    S1[i] = S1[i] + S0[i % 1] + A[i] + 2
    S2[i % 4] = A[i]
    if i % 2 == 1:
        S3[(i // 2) % 8] = S2[3] + A[(i + 1) % 8] + 4
    S4[max(0 - i, 0)] = S2[0] + A[i] + 5
    O1[i] = S3[i % 8] + 6
sch.annotate(i, "software_pipeline_stage", [1, 1, 2, 2, 2, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [1, 2])
