# random loop, seed 4
S0 = alloc([3])
S1 = alloc([2])
for i in range(6):
    S0[i % 3] = A[i]
    S1[max(1 - i, 0)] = S0[(1 if i % 2 == 0 else 1)] + 2
    O1[i] = S1[i % 2] + 3
sch.annotate(i, "software_pipeline_stage", [1, 1, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [1])
