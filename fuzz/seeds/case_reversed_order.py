# The consumer is ordered before the producer within a step (it reads an older iteration).
B = alloc([1])
for i in range(8):
    B[0] = A[i] * 3
    C[i] = B[0] - 1

sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [1, 0])
sch.annotate(i, "software_pipeline_async_stages", [0])
