# random loop, seed 30
S0 = alloc([8])
for i in range(N):
    S0[max(7 - i, 0)] = A[i, 1]
    O1[i] = A[i, 0]
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
