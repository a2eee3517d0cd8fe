# random loop, seed 6
S0 = alloc([1])
for i in range(3):
    S0[(0 if i % 2 == 0 else 0)] = A[i] + 1
    O1[i] = S0[(i // 2) % 1] + A[i] + 2
sch.annotate(i, "software_pipeline_stage", [1, 2])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [2])
