B = alloc([1]
for i in range(16)
    B[0] = A[i] +
    C[i] = B[0] + 1
sch.annotate(i, "software_pipeline_stage", [0, 1])
