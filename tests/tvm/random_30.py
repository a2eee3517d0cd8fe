# random loop, seed 30
S0 = alloc([4])
for i in range(11):
    if i % 2 == 1:
        S0[min(i, 3)] = A[i] + 1
    O1[i] = S0[(i + 2) % 4] + S0[(1 if i % 2 == 0 else 1)] + 2
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [])
