# random loop, seed 33
S0 = alloc([8])
S1 = alloc([2])
S2 = alloc([4])
S3 = alloc([3])
for i in range(5):
    S0[0] = A[i, 0]
    S1[(i + 2) % 2] = A[i, 0] + 2
    for x in range(2):
        O1[i, x] = S0[(0 if i % 2 == 0 else 4)] + 3 + x
    S2[(i // 2) % 4] = S0[i % 8] + 4
    S3[(2 * i + 1) % 3] = A[i, 0]
    O2[i] = A[i, 0] + 6
sch.annotate(i, "software_pipeline_stage", [0, 1, 1, 1, 2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0, 2])
