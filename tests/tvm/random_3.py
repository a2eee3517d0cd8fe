# random loop, seed 3
S0 = alloc([4])
for i in range(2):
    S0[min(i + 1, 3)] = A[i] + 1
    O1[i] = S0[max(3 - i, 0)] + S0[(i // 2) % 4] + 2
sch.annotate(i, "software_pipeline_stage", [0, 0])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
