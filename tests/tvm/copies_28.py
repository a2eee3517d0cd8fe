# random loop, seed 28
S0 = alloc([8])
S1 = alloc([2])
for i in range(3):
    S0[i % 8] = A[i, 1]
    S1[1] = S1[1] + S0[max(7 - i, 0)] + S0[i % 8] + 2
    S0[0] = S0[0] + S1[(1 if i % 2 == 0 else 0)] + A[i, 0] + 3
    O1[i] = A[(i + 1) % 8, 0] + 4
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [0])
