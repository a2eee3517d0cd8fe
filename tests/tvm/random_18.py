# random loop, seed 18
S0 = alloc([16])
for i in range(6):
    S0[i % 16] = A[i] + 1
    O1[i] = S0[i % 16] + S0[i] + 2
sch.annotate(i, "software_pipeline_stage", [0, 0])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [])
