# RFC 0077, example (c): two producers in stage 0 around a consumer in stage 3.
A_sh = alloc([1])
B_sh = alloc([1])
for i in range(16):
    A_sh[0] = A[i]
    B_sh[0] = B[i]
    C[i] = A_sh[0] + B_sh[0]

sch.annotate(i, "software_pipeline_stage", [0, 0, 3])
sch.annotate(i, "software_pipeline_order", [0, 2, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
