# Writer and reader one stage apart on disjoint constant elements: one version.
S = alloc([2])
for i in range(8):
    S[0] = A[i]
    C[i] = S[1]
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
