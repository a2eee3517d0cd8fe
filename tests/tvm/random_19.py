# random loop, seed 19
S0 = alloc([1])
S1 = alloc([8])
S2 = alloc([1])
for i in range(5):
    if i % 2 == 0:
        S0[0] = A[i] + 1
    for x in range(2):
        O1[i, x] = S0[0] + 2 + x
    S1[7] = S1[7] + S0[max(0 - i, 0)] + S0[min(i, 0)] + 3
    O2[i] = S1[(2 if i % 2 == 0 else 2)] + 4
    S2[max(0 - i, 0)] = S0[max(0 - i, 0)] + S0[0] + A[i] + 5
    O3[i] = S1[(i + 1) % 8] + S1[(i + 6) % 8] + A[i] + 6
sch.annotate(i, "software_pipeline_stage", [2, 2, 0, 0, 1, 1])
sch.annotate(i, "software_pipeline_order", [2, 1, 5, 3, 0, 4])
sch.annotate(i, "software_pipeline_async_stages", [2])
