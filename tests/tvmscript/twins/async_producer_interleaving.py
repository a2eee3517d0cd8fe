# The Stagecraft twin of ../async_producer_interleaving.py.
A_shared = alloc([16, 1], scope="shared", dtype="float32")
B_shared = alloc([16, 1], scope="shared", dtype="float32")
for tx in range(16):
    for i in range(16):
        A_shared[tx, 0] = A[tx, i]
        B_shared[tx, 0] = B[tx, i]
        C[tx, i] = A_shared[tx, 0] + B_shared[tx, 0]

sch.annotate(i, "software_pipeline_stage", [0, 0, 3])
sch.annotate(i, "software_pipeline_order", [0, 2, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
