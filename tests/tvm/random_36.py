# random loop, seed 36
S0 = alloc([4])
S1 = alloc([4])
S2 = alloc([3])
S3 = alloc([1])
for i in range(1):
    S0[min(i + 1, 3)] = A[i] + 1
    S1[min(i + 1, 3)] = S0[(3 if i % 2 == 0 else 3)] + S0[i % 4] + A[i] + 2
    S1[min(i + 1, 3)] = S1[max(3 - i, 0)] + S1[1] + 3
    S2[(2 if i % 2 == 0 else 1)] = A[i] + 4
    S3[0] = S0[(0 if i % 2 == 0 else 2)] + S1[(0 if i % 2 == 0 else 0)] + 5
    O1[i] = S2[max(2 - i, 0)] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 2, 3, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [3])
