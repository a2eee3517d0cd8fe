# random loop, seed 10
S0 = alloc([2])
for i in range(7):
    S0[min(i + 1, 1)] = A[i] + 1
    O1[i] = S0[(1 if i % 2 == 0 else 0)] + S0[i % 2] + 2
sch.annotate(i, "software_pipeline_stage", [3, 1])
sch.annotate(i, "software_pipeline_order", [1, 0])
sch.annotate(i, "software_pipeline_async_stages", [1, 3])
