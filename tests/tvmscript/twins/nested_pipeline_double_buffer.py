# The Stagecraft twin of ../nested_pipeline_double_buffer.py: TVM's test indexes B (16, 1, 1) with [tx, i, 0].
A_shared = alloc([16, 1, 16], scope="shared", dtype="float32")
A_local = alloc([1, 1, 16], scope="local", dtype="float32")
B = alloc([16, 1, 1], scope="shared", dtype="float32")
for tx in range(16):
    for i in range(16):
        for j in range(16):
            A_shared[tx, 0, j] = A[tx, i, j]
        for j in range(16):
            A_local[0, 0, j] = A_shared[tx, i, j]
        for j_1 in range(16):
            B[tx, i, 0] = A_local[0, 0, j_1] * 2.0
            C[tx, i, j_1] = B[tx, i, 0] + 1.0

sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 2, 3, 1, 4])
sch.annotate(j_1, "software_pipeline_stage", [0, 1])
sch.annotate(j_1, "software_pipeline_order", [0, 1])
