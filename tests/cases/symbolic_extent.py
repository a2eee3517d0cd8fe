# A symbolic extent keeps predicates; the epilogue drops what is dead for every N, so every count is exact at every N.
B = alloc([1])
for i in range(N):
    B[0] = A[i] + 1
    C[i] = B[0] + 1

sch.annotate(i, "software_pipeline_stage", [0, 2])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
