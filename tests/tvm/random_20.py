# random loop, seed 20
S0 = alloc([8])
for i in range(3):
    S0[(i // 2) % 8] = S0[(i // 2) % 8] + A[i] + 1
    O1[i] = A[i] + 2
    O2[i] = S0[0] + S0[0] + A[(i + 1) % 8] + 3
sch.annotate(i, "software_pipeline_stage", [0, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
