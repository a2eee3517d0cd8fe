# random loop, seed 34
S0 = alloc([1])
S1 = alloc([1])
S2 = alloc([16])
for i in range(5):
    S0[(2 * i + 0) % 1] = A[i, 1]
    S1[max(0 - i, 0)] = A[i, 0] + 2
    S2[(i + 7) % 16] = S1[i % 1] + 3
    O1[i] = S0[min(i + 1, 0)] + A[(i + 1) % 8, 0] + 4
    O2[i] = A[i, 0] + 5
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [0])
