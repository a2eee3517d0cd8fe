# Fewer iterations than stages: the epilogue starts at max_stage.
B = alloc([1])
C = alloc([1])
for i in range(2):
    B[0] = A[i] + 1
    C[0] = B[0] * 2
    D[i] = C[0] + 1
sch.annotate(i, "software_pipeline_stage", [0, 2, 4])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0, 2])
