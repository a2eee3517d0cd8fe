# A key annotated twice on one loop: the last one written wins, as in TVM, and the first is a
# warning pointing at it (an edit to the first would otherwise change nothing).
B = alloc([1])
for i in range(8):
    B[0] = A[i]
    C[i] = B[0] + 1

sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_stage", [0, 2])
