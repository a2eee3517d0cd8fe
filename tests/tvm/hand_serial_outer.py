# The pipelined loop inside a loop that is not pipelined (a batch loop): TVM pipelines the inner
# loop where it is, and allocates its buffers in its own block.
S = alloc([2], scope="shared")
for b in range(3):
    for i in range(6):
        S[0] = A[b, i] + 1
        S[1] = A[b, i] * 2
        C[b, i] = S[0] + S[1]

sch.annotate(i, "software_pipeline_stage", [0, 0, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0])
