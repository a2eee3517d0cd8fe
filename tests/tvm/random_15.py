# random loop, seed 15
for i in range(1):
    O1[i] = A[i] + 1
    O2[i] = A[i] + 2
sch.annotate(i, "software_pipeline_stage", [0, 0])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [])
