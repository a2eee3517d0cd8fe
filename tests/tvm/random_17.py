# random loop, seed 17
S0 = alloc([8])
S1 = alloc([2])
S2 = alloc([8])
U_unused = alloc([16], scope="shared")
for i in range(N):
    if i % 2 == 1:
        S0[0] = A[i] + 1
    for x in range(2):
        O1[i, x] = S0[6] + S0[(2 * i + 6) % 8] + 2 + x
    S1[(2 * i + 1) % 2] = S0[6] + 3
    S2[0] = S1[(i // 2) % 2] + S1[(i // 2) % 2] + A[i] + 4
    O2[i] = A[i] + 5
    O3[i] = A[i] + 6
sch.annotate(i, "software_pipeline_stage", [2, 1, 1, 2, 1, 2])
sch.annotate(i, "software_pipeline_order", [0, 5, 1, 3, 2, 4])
sch.annotate(i, "software_pipeline_async_stages", [0, 2])
