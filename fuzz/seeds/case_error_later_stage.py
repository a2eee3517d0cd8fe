# Rejected: the reader is in an earlier stage than the writer.
B = alloc([1])
for i in range(16):
    B[0] = A[i] + 1
    C[i] = B[0] + 1

sch.annotate(i, "software_pipeline_stage", [1, 0])
sch.annotate(i, "software_pipeline_order", [0, 1])
