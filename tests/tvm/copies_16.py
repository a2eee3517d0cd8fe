# random loop, seed 16
for i in range(10):
    O1[i] = A[i]
sch.annotate(i, "software_pipeline_stage", [3])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [3])
