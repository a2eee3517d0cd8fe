# A temporary used without `B = alloc(...)` is a kernel parameter, which gets no copy per iteration:
# the reordered write-after-read is an error, and its hint says that declaring B is the fix.
for i in range(8):
    B[0] = A[i]
    C[i] = B[0] + 1
sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
