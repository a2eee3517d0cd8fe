# random loop, seed 27
U_unused = alloc([16], scope="shared")
for i in range(10):
    O1[i] = A[i] + 1
    O2[i] = A[i] + 2
    O3[i] = A[i] + 3
sch.annotate(i, "software_pipeline_stage", [0, 2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [1, 3])
