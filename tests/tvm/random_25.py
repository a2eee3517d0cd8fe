# random loop, seed 25
S0 = alloc([8])
for i in range(8):
    for x in range(2):
        O1[i, x] = A[(i + 1) % 8] + 1 + x
    O2[i] = A[i] + 2
    S0[i % 8] = A[i] + 3
    O3[i] = A[i] + 4
sch.annotate(i, "software_pipeline_stage", [0, 1, 2, 2])
sch.annotate(i, "software_pipeline_order", [1, 0, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [2])
