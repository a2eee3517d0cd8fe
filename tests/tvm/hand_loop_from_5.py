# A loop from 5 to 9 with three stages: TVM's normalized analyzer binds the variable to
# Range(min, extent) = [5, 4), empty, so it proves every predicate of the async producers and
# every head non-negative there.
B = alloc([1])
S = alloc([1])
for i in range(5, 9):
    B[0] = A[i] + 1
    S[0] = B[0] * 2
    C[i] = S[0] + 3

sch.annotate(i, "software_pipeline_stage", [0, 1, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
