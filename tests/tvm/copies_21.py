# random loop, seed 21
S0 = alloc([3])
S1 = alloc([4])
for i in range(10):
    S0[(1 if i % 2 == 0 else 2)] = A[i]
    S1[min(i, 3)] = S0[i % 3] + 2
    O1[i] = S0[i % 3] + 3
sch.annotate(i, "software_pipeline_stage", [2, 3, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [2])
