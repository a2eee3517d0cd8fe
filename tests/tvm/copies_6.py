# random loop, seed 6
S0 = alloc([16])
for i in range(11):
    S0[i + 2] = A[i, 2]
    O1[i] = S0[(2 * i + 0) % 16] + S0[0] + A[i, 0] + 2
sch.annotate(i, "software_pipeline_stage", [0, 3])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
