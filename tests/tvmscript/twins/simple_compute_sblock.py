# The Stagecraft twin of ../simple_compute_sblock.py.
# TVM 0.27 spells it Ts.sblock; the twin is the same loop.
B = alloc([16, 1], scope="shared", dtype="float32")
for tx in range(16):
    for i in range(16):
        B[tx, 0] = A[tx, i] * 2.0
        C[tx, i] = B[tx, 0] + 1.0

sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
