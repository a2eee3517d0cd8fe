# random loop, seed 1
for i in range(3):
    O1[i] = A[i] + 1
sch.annotate(i, "software_pipeline_stage", [0])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
