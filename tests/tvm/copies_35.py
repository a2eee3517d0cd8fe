# random loop, seed 35
S0 = alloc([1])
for i in range(6):
    S0[i % 1] = A[i]
    O1[i] = S0[max(0 - i, 0)] + S0[(0 if i % 2 == 0 else 0)] + 2
sch.annotate(i, "software_pipeline_stage", [1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [1])
