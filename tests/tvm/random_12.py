# random loop, seed 12
U_unused = alloc([16], scope="shared")
for i in range(2):
    O1[i] = A[(i + 1) % 8] + 1
sch.annotate(i, "software_pipeline_stage", [0])
sch.annotate(i, "software_pipeline_order", [0])
sch.annotate(i, "software_pipeline_async_stages", [0])
