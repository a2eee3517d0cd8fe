# An order beyond the number of statements.
B = alloc([1])
for i in range(8):
    B[0] = A[i] + 1
    C[i] = B[0] + 1
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 2])
