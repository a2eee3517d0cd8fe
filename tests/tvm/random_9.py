# random loop, seed 9
S0 = alloc([16])
S1 = alloc([3])
S2 = alloc([16])
for i in range(12):
    for x in range(2):
        O1[i, x] = A[(i + 1) % 8] + 1 + x
    S0[i + 1] = A[i] + 2
    S0[i + 2] = S0[i] + 3
    S1[(2 * i + 2) % 3] = A[i] + 4
    S2[i] = S0[i + 2] + 5
    O2[i] = A[i] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 0, 0, 0])
sch.annotate(i, "software_pipeline_order", [3, 2, 5, 0, 4, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
