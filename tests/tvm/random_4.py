# random loop, seed 4
S0 = alloc([1])
S1 = alloc([4])
for i in range(N):
    S0[(i // 2) % 1] = A[i] + 1
    S1[i % 4] = S0[min(i, 0)] + 2
    O1[i] = S1[(2 * i + 2) % 4] + 3
sch.annotate(i, "software_pipeline_stage", [1, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0])
