# random loop, seed 32
S0 = alloc([1])
S1 = alloc([16])
S2 = alloc([1])
S3 = alloc([2])
for i in range(2):
    S0[i % 1] = A[i, 0]
    S1[i + 1] = S0[0] + S0[i % 1] + A[i, 0] + 2
    S2[0] = S0[i % 1] + S0[min(i, 0)] + 3
    S3[(i + 2) % 2] = A[i, 3]
    O1[i] = S2[0] + S0[0] + 5
sch.annotate(i, "software_pipeline_stage", [0, 0, 2, 2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [0, 2])
