# random loop, seed 29
S0 = alloc([4])
S1 = alloc([16])
for i in range(10):
    S0[(2 * i + 1) % 4] = S0[(2 * i + 1) % 4] + A[i] + 1
    S0[i % 4] = A[i] + 2
    S1[i + 2] = S0[1] + 3
    S1[i + 2] = A[(i + 1) % 8] + 4
    O1[i] = S1[(i // 2) % 16] + S1[i + 1] + A[i] + 5
sch.annotate(i, "software_pipeline_stage", [0, 1, 1, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [])
