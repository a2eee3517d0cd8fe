# `A[j]` with no loop over `j`: a typo, not a symbolic parameter. `N` is one: a loop runs to it.
B = alloc([1])
for i in range(N):
    B[0] = A[j] + 1
    C[i] = B[0] + 1

sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
