# random loop, seed 16
for i in range(6):
    O1[i] = A[(i + 1) % 8] + 1
sch.annotate(i, "software_pipeline_stage", [2])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [0, 1, 2, 3])
