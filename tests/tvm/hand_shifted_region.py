# Writer and reader one stage apart on different elements of one buffer: does TVM double it?
S = alloc([17])
for i in range(8):
    S[i + 1] = A[i]
    C[i] = S[i]
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
