# random loop, seed 21
S0 = alloc([16])
S1 = alloc([4])
for i in range(N):
    if i % 2 == 0:
        S0[min(i, 15)] = A[(i + 1) % 8] + 1
    S1[min(i + 1, 3)] = S0[max(15 - i, 0)] + S0[(2 * i + 5) % 16] + 2
    O1[i] = S0[0] + S1[(i + 3) % 4] + 3
sch.annotate(i, "software_pipeline_stage", [0, 0, 0])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [])
