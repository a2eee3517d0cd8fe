# random loop, seed 28
S0 = alloc([3])
S1 = alloc([1])
S2 = alloc([8])
for i in range(3):
    S0[2] = A[i] + 1
    if i % 2 == 0:
        S1[0] = A[i] + 2
    S2[2] = A[i] + 3
    O1[i] = A[i] + 4
sch.annotate(i, "software_pipeline_stage", [1, 2, 2, 1])
sch.annotate(i, "software_pipeline_order", [1, 2, 3, 0])
sch.annotate(i, "software_pipeline_async_stages", [])
