# random loop, seed 9
S0 = alloc([1])
S1 = alloc([1])
S2 = alloc([16])
S3 = alloc([16])
for i in range(10):
    S0[i % 1] = A[i]
    S1[i % 1] = A[i]
    S1[(2 * i + 0) % 1] = S1[(2 * i + 0) % 1] + S0[i % 1] + 3
    S2[i] = A[i]
    S3[i + 2] = S2[i % 16] + 5
    O1[i] = A[i] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1, 2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
