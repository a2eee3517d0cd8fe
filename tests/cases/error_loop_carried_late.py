# The reader of B runs two stages after its writer, so the writer of the next iteration overwrites
# B first: the hint names the stage that keeps them in order. (B is in global memory, which gets
# no copy per iteration that would let them overlap.)
B = alloc([1], scope="global")
for i in range(8):
    B[0] = A[i]
    C[i] = B[0]
sch.annotate(i, "software_pipeline_stage", [0, 2])
sch.annotate(i, "software_pipeline_order", [0, 1])
