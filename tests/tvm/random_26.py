# random loop, seed 26
S0 = alloc([8])
S1 = alloc([4])
S2 = alloc([8])
for i in range(6):
    S0[0] = A[i] + 1
    S1[(2 * i + 1) % 4] = S0[(2 * i + 4) % 8] + A[i] + 2
    S2[(i // 2) % 8] = A[i] + 3
    O1[i] = S1[(i // 2) % 4] + S0[(i + 8) % 8] + A[i] + 4
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 0])
sch.annotate(i, "software_pipeline_order", [2, 1, 3, 0])
sch.annotate(i, "software_pipeline_async_stages", [0])
