# random loop, seed 8
S0 = alloc([16])
S1 = alloc([3])
S2 = alloc([3])
for i in range(4):
    S0[i] = A[i] + 1
    for x in range(2):
        O1[i, x] = S0[i + 1] + S0[min(i, 15)] + A[i] + 2 + x
    S1[(i // 2) % 3] = A[i] + 3
    if i % 2 == 0:
        S2[0] = S0[min(i, 15)] + S1[min(i + 1, 2)] + 4
    for x in range(2):
        O2[i, x] = A[i] + 5 + x
    O3[i] = S0[(i + 9) % 16] + S1[min(i, 2)] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 0, 0, 0])
sch.annotate(i, "software_pipeline_order", [5, 3, 0, 2, 4, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
