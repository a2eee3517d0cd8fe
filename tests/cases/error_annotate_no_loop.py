# An annotation naming a loop that does not exist (here the extent's name, then a typo) is an error
# on that name: without it the loop over `k` would run unpipelined, its schedule silently dropped.
A_sh = alloc([1])
for k in range(N):
    A_sh[0] = A[k]
    C[k] = A_sh[0] * 2

sch.annotate(N, "software_pipeline_stage", [0, 1])
sch.annotate(kk, "software_pipeline_order", [0, 1])
