# random loop, seed 2
for i in range(8):
    O1[i] = A[i]
sch.annotate(i, "software_pipeline_stage", [1])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [1])
