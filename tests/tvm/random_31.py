# random loop, seed 31
for i in range(12):
    O1[i] = A[i] + 1
sch.annotate(i, "software_pipeline_stage", [3])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [0, 1, 2, 3])
