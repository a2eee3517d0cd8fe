# Two consumers of one async stage: the wait goes before the first, with the smaller count.
B = alloc([1])
for i in range(10):
    B[0] = A[i] + 1
    C[i] = B[0] + 1
    D[i] = B[0] * 2
sch.annotate(i, "software_pipeline_stage", [0, 2, 1])
sch.annotate(i, "software_pipeline_order", [0, 2, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
