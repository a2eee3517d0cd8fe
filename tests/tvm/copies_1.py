# random loop, seed 1
for i in range(11):
    O1[i] = A[i, 2]
sch.annotate(i, "software_pipeline_stage", [0])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [0])
