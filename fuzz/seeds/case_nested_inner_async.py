# The inner loop has an async stage and is pipelined first; the outer loop pipelines its three parts
# (inner prologue, body, epilogue) and the final store. The inner queue is drained at the end of each
# inner epilogue, so the inner pipeline leaves nothing in flight behind it.
T = alloc([1])
for i in range(4):
    for k in range(8):
        T[0] = A[i, k] * 2
        B[i, k] = T[0] + 1
    C[i] = B[i, 7] + B[i, 0]

sch.annotate(k, "software_pipeline_stage", [0, 1])
sch.annotate(k, "software_pipeline_order", [0, 1])
sch.annotate(k, "software_pipeline_async_stages", [0])
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
