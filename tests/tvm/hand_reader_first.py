# The reader is ordered before the writer: TVM keeps one version (and the wait sees the previous
# iteration's group).
B = alloc([1])
for i in range(8):
    B[0] = A[i] + 1
    C[i] = B[0] + 1
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [1, 0])
sch.annotate(i, "software_pipeline_async_stages", [0])
