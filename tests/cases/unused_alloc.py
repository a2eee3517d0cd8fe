# `U` is allocated but never used. TVM 0.27's pass stops (`InternalError: unordered_map::at`) on an
# allocation in a pipelined loop's block that no statement touches: the TVMScript export allocates
# it outside the pipelined loop, in a root block, so that every export runs in TVM.
B = alloc([1])
U = alloc([4], scope="shared")
C_sh = alloc([1])
for i in range(8):
    B[0] = A[i] + 1
    C_sh[0] = B[0] * 2
    C[i] = C_sh[0] + 3

sch.annotate(i, "software_pipeline_stage", [0, 1, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0])
