# random loop, seed 13
S0 = alloc([4])
for i in range(1):
    O1[i] = A[(i + 1) % 8] + 1
    S0[(1 if i % 2 == 0 else 1)] = A[(i + 1) % 8] + 2
    O2[i] = S0[2] + S0[min(i + 1, 3)] + 3
sch.annotate(i, "software_pipeline_stage", [2, 2, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0])
