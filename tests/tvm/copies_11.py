# random loop, seed 11
S0 = alloc([8])
S1 = alloc([4])
S2 = alloc([2])
S3 = alloc([1])
for i in range(1):
    S0[min(i, 7)] = A[i]
    S1[(i // 2) % 4] = A[i]
    S2[i % 2] = A[i]
    S3[i % 1] = A[i]
    O1[i] = S3[i % 1] + A[i] + 5
sch.annotate(i, "software_pipeline_stage", [0, 0, 1, 1, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
