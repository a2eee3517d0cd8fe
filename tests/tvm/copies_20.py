# random loop, seed 20
S0 = alloc([16])
for i in range(8):
    S0[min(i, 15)] = A[i]
    S0[(i + 12) % 16] = A[i] + 2
    O1[i] = S0[min(i + 1, 15)] + 3
sch.annotate(i, "software_pipeline_stage", [1, 2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [1])
