# random loop, seed 27
S0 = alloc([3])
for i in range(4):
    S0[i % 3] = A[i]
    O1[i] = S0[i % 3] + S0[i % 3] + 2
    O2[i] = S0[0] + S0[i % 3] + A[(i + 1) % 8] + 3
sch.annotate(i, "software_pipeline_stage", [0, 1, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0])
