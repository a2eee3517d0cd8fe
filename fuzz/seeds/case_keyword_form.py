B = alloc([4], scope="shared", dtype="float16")
for i in range(12):
    for k in range(4):
        B[k] = A[i, k]
    C[i] = max(B[0], B[1]) + fma(B[2], B[3], 1.5)

annotate(i, ann_key="software_pipeline_stage", ann_val=[0, 2])
annotate(i, ann_key="software_pipeline_order", ann_val=[0, 1])
annotate(i, ann_key="software_pipeline_async_stages", ann_val=[0])
sch.annotate(i, "pragma_unroll_explicit", [0])
