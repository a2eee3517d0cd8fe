# random loop, seed 38
S0 = alloc([3])
for i in range(4):
    S0[(2 if i % 2 == 0 else 1)] = A[(i + 1) % 8] + 1
    O1[i] = S0[min(i, 2)] + S0[(i // 2) % 3] + 2
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [])
