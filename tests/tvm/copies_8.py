# random loop, seed 8
S0 = alloc([4])
S1 = alloc([1])
S2 = alloc([4])
S3 = alloc([2])
S4 = alloc([4])
for i in range(N):
    S0[(3 if i % 2 == 0 else 0)] = A[i, 3]
    S1[i % 1] = A[i, 0]
    S2[i % 4] = A[i, 0]
    S3[0] = S2[min(i, 3)] + 4
    S4[min(i + 1, 3)] = A[i, 0] + 5
    O1[i] = A[i, 0] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0])
