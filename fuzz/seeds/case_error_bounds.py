B = alloc([4])
for i in range(8):
    B[i] = A[i]
    C[i] = B[i]

sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
