# random loop, seed 24
for i in range(7):
    O1[i] = A[i]
sch.annotate(i, "software_pipeline_stage", [3])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [3])
