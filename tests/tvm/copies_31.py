# random loop, seed 31
for i in range(N):
    O1[i] = A[i, 3]
sch.annotate(i, "software_pipeline_stage", [1])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [1])
