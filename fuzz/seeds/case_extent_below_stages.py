# Extent smaller than the number of stages: the body is empty, prologue and epilogue overlap.
B = alloc([1])
for i in range(2):
    B[0] = A[i] + 1
    C[i] = B[0] + 1

sch.annotate(i, "software_pipeline_stage", [0, 3])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
