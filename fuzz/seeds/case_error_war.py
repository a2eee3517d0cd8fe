# Rejected: the write of B is moved before the read of the same iteration (TVM misses this).
B = alloc([1])
for i in range(16):
    C[i] = B[0] + 1
    B[0] = A[i]

sch.annotate(i, "software_pipeline_stage", [0, 0])
sch.annotate(i, "software_pipeline_order", [1, 0])
