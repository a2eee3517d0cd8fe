# A symbolic extent under three stages, two of them async: TVM bounds the epilogue from below with
# an extra predicate (it cannot prove N >= 3) and guards the counts of predicated producers.
B = alloc([1])
S = alloc([1])
for i in range(N):
    B[0] = A[i] + 1
    S[0] = B[0] * 2
    C[i] = S[0] + 3

sch.annotate(i, "software_pipeline_stage", [0, 1, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0, 1])
