# RFC 0077, example (b): a chain of three statements, the first two stages asynchronous.
# `C = B + 1` is itself async, so it may read B until its group completes: B needs a third version.
B = alloc([1])
C = alloc([1])
for i in range(16):
    B[0] = A[i] + 1
    C[0] = B[0] + 1
    D[i] = C[0] + 1

sch.annotate(i, "software_pipeline_stage", [0, 1, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
