# random loop, seed 39
S0 = alloc([4])
S1 = alloc([4])
S2 = alloc([2])
for i in range(5):
    S0[(2 * i + 2) % 4] = A[i] + 1
    S1[(i + 1) % 4] = A[i] + 2
    S2[(i + 2) % 2] = A[i] + 3
    S2[(2 * i + 1) % 2] = S1[(2 if i % 2 == 0 else 0)] + S0[0] + 4
    O1[i] = S1[(1 if i % 2 == 0 else 0)] + S2[(2 * i + 0) % 2] + 5
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 0, 0])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [0])
