# The Stagecraft twin of ../dag_interleaving.py.
AS = alloc([16, 1], scope="shared", dtype="float32")
BS = alloc([16, 1], scope="shared", dtype="float32")
AL = alloc([1, 1], scope="local", dtype="float32")
BL = alloc([1, 1], scope="local", dtype="float32")
for tx in range(16):
    for i in range(16):
        AS[tx, 0] = A[tx, i] * 2.0
        AL[0, 0] = AS[tx, 0]
        BS[tx, 0] = B[tx, i] + 2.0
        BL[0, 0] = BS[tx, 0]
        C[tx, i] = AL[0, 0] * BL[0, 0]

sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 0, 1])
sch.annotate(i, "software_pipeline_order", [0, 2, 1, 3, 4])
