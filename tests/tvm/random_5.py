# random loop, seed 5
S0 = alloc([1])
S1 = alloc([1])
S2 = alloc([4])
for i in range(5):
    S0[0] = A[i] + 1
    O1[i] = A[(i + 1) % 8] + 2
    S1[0] = S1[0] + S0[(i + 1) % 1] + S0[(0 if i % 2 == 0 else 0)] + 3
    O2[i] = S0[0] + A[i] + 4
    S2[i % 4] = S1[(0 if i % 2 == 0 else 0)] + 5
    O3[i] = S0[(i // 2) % 1] + 6
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 0, 0, 0])
sch.annotate(i, "software_pipeline_order", [1, 2, 3, 0, 5, 4])
sch.annotate(i, "software_pipeline_async_stages", [0])
