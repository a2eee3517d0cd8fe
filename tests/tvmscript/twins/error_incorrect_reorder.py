# The Stagecraft twin of ../error_incorrect_reorder.py.
B = alloc([16, 1], scope="shared", dtype="float32")
C = alloc([16, 1], scope="shared", dtype="float32")
for tx in range(16):
    for i in range(16):
        B[tx, 0] = A[tx, i] * 2.0
        C[tx, 0] = B[tx, 0] + 2.0
        D[tx, i] = C[tx, 0] + 1.0

sch.annotate(i, "software_pipeline_stage", [0, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 2, 1])
