# random loop, seed 13
S0 = alloc([1])
S1 = alloc([3])
for i in range(3):
    S0[i % 1] = A[i]
    S1[(2 if i % 2 == 0 else 0)] = A[(i + 1) % 8] + 2
    O1[i] = A[i] + 3
sch.annotate(i, "software_pipeline_stage", [1, 3, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [1])
