# random loop, seed 39
S0 = alloc([4])
S1 = alloc([1])
S2 = alloc([8])
S3 = alloc([3])
for i in range(N):
    S0[(i // 2) % 4] = A[i]
    S1[min(i, 0)] = A[i]
    S2[(2 if i % 2 == 0 else 1)] = S1[i % 1] + 3
    S3[(i // 2) % 3] = S2[i % 8] + 4
    O1[i] = S3[(2 * i + 0) % 3] + A[(i + 1) % 8] + 5
sch.annotate(i, "software_pipeline_stage", [0, 1, 1, 2, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
