# random loop, seed 33
S0 = alloc([16])
S1 = alloc([4])
for i in range(N):
    S0[0] = S0[0] + A[i] + 1
    S0[i] = A[i] + 2
    for x in range(2):
        O1[i, x] = S0[max(15 - i, 0)] + A[i] + 3 + x
    S0[(2 if i % 2 == 0 else 13)] = S0[(2 if i % 2 == 0 else 13)] + A[(i + 1) % 8] + 4
    S1[(2 * i + 1) % 4] = A[i] + 5
    O2[i] = S0[(2 * i + 14) % 16] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 0, 0, 0])
sch.annotate(i, "software_pipeline_order", [5, 1, 2, 3, 0, 4])
sch.annotate(i, "software_pipeline_async_stages", [0])
