# random loop, seed 11
S0 = alloc([3])
for i in range(2):
    S0[max(2 - i, 0)] = A[i] + 1
    for x in range(2):
        O1[i, x] = A[i] + 2 + x
    for x in range(2):
        O2[i, x] = A[i] + 3 + x
    S0[(2 * i + 1) % 3] = S0[(2 * i + 0) % 3] + S0[0] + 4
    O3[i] = S0[i % 3] + 5
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 0, 0])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [])
