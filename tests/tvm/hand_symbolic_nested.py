# An inner pipeline over a symbolic size inside an outer pipeline: TVM decides what its analyzer
# can prove about N without a bound on it.
T0 = alloc([1])
for i in range(4):
    for k in range(N):
        T0[0] = A[i, k] * 2
        B[i, k] = T0[0] + 1
    C[i] = B[i, 0] + 1

sch.annotate(k, "software_pipeline_stage", [0, 1])
sch.annotate(k, "software_pipeline_order", [0, 1])
sch.annotate(k, "software_pipeline_async_stages", [0])
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
