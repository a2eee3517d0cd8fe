# random loop, seed 14
S0 = alloc([4])
S1 = alloc([3])
S2 = alloc([2])
S3 = alloc([8])
for i in range(7):
    S0[3] = A[i] + 1
    S1[min(i + 1, 2)] = A[(i + 1) % 8] + 2
    S2[(2 * i + 1) % 2] = S0[i % 4] + S1[min(i + 1, 2)] + 3
    O1[i] = S0[(0 if i % 2 == 0 else 2)] + A[i] + 4
    S3[min(i, 7)] = S2[(i // 2) % 2] + 5
    O2[i] = S1[(i + 2) % 3] + S0[2] + 6
sch.annotate(i, "software_pipeline_stage", [1, 2, 2, 2, 3, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0])
