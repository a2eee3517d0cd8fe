# random loop, seed 36
S0 = alloc([16])
S1 = alloc([1])
S2 = alloc([4])
for i in range(11):
    S0[i + 2] = A[i, 1]
    S0[0] = S0[0] + S0[i % 16] + S0[i % 16] + A[i, 0] + 2
    for x in range(2):
        O1[i, x] = S0[max(15 - i, 0)] + 3 + x
    S1[(0 if i % 2 == 0 else 0)] = S0[i % 16] + S0[0] + A[(i + 1) % 8, 0] + 4
    S2[0] = S0[i % 16] + S1[i % 1] + 5
    O2[i] = A[i, 0]
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4, 5])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
