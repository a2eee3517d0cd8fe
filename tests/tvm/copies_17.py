# random loop, seed 17
S0 = alloc([3])
S1 = alloc([1])
S2 = alloc([8])
for i in range(1):
    S0[i % 3] = A[i]
    if i % 2 == 0:
        S0[min(i, 2)] = A[(i + 1) % 8] + 2
    S0[(2 if i % 2 == 0 else 0)] = A[i] + 3
    S1[min(i, 0)] = S1[min(i, 0)] + S0[i % 3] + 4
    S2[0] = A[i] + 5
    O1[i] = S2[i % 8] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0])
