# random loop, seed 40
S0 = alloc([2])
S1 = alloc([4])
S2 = alloc([2])
S3 = alloc([3])
S4 = alloc([4])
for i in range(5):
    S0[0] = A[i]
    S1[max(3 - i, 0)] = S1[max(3 - i, 0)] + A[i] + 2
    S2[0] = A[i]
    S3[min(i + 1, 2)] = S3[min(i + 1, 2)] + A[(i + 1) % 8] + 4
    S4[1] = A[i] + 5
    O1[i] = A[i]
sch.annotate(i, "software_pipeline_stage", [0, 1, 1, 1, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
