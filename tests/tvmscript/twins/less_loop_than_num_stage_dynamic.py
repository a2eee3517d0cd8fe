# The Stagecraft twin of ../less_loop_than_num_stage_dynamic.py.
B = alloc([1], scope="shared", dtype="float32")
C = alloc([1], scope="shared", dtype="float32")
D = alloc([1], scope="shared", dtype="float32")
for i in range(K):
    B[0] = A[i] * 2.0
    C[0] = B[0] + 3.0
    D[0] = C[0] + 4.0
    E[i] = D[0] + 5.0

sch.annotate(i, "software_pipeline_stage", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
