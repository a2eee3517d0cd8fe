# random loop, seed 40
S0 = alloc([3])
S1 = alloc([2])
S2 = alloc([1])
for i in range(4):
    if i % 2 == 0:
        S0[min(i + 1, 2)] = A[i] + 1
    S1[(i + 1) % 2] = A[i] + 2
    S2[max(0 - i, 0)] = A[(i + 1) % 8] + 3
    O1[i] = A[i] + 4
    S0[(i + 3) % 3] = S0[(i + 3) % 3] + S0[(i + 1) % 3] + S1[min(i, 1)] + 5
    O2[i] = S2[min(i, 0)] + 6
sch.annotate(i, "software_pipeline_stage", [0, 1, 1, 2, 3, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [1, 3])
