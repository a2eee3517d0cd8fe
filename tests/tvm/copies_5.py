# random loop, seed 5
S0 = alloc([2])
S1 = alloc([1])
S2 = alloc([3])
S3 = alloc([16])
S4 = alloc([1])
for i in range(12):
    S0[i % 2] = A[i]
    S1[(i // 2) % 1] = S1[(i // 2) % 1] + S0[i % 2] + 2
    S2[0] = A[i]
    S3[i + 2] = A[i] + 4
    S4[(i // 2) % 1] = S1[i % 1] + S2[i % 3] + 5
    O1[i] = A[i] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1, 2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0])
