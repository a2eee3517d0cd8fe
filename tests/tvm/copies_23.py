# random loop, seed 23
S0 = alloc([1])
S1 = alloc([4])
S2 = alloc([16])
S3 = alloc([2])
S4 = alloc([1])
for i in range(5):
    S0[i % 1] = A[i]
    S1[i % 4] = A[i]
    S2[i + 2] = A[i] + 3
    S3[i % 2] = A[i]
    S4[i % 1] = A[i]
    O1[i] = S1[(2 if i % 2 == 0 else 3)] + A[i] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 1, 1, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
