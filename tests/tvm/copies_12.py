# random loop, seed 12
for i in range(1):
    O1[i] = A[i]
sch.annotate(i, "software_pipeline_stage", [2])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [2])
