# The store a GEMM makes after its loop, written as the last iteration's statement. Its guard is
# decided where each copy runs: in the body (iterations 0 to 6 of the stage-1 statement) it never
# holds and the statement is left out; in the epilogue (iteration 7) it always holds and the
# statement is written alone. So no branch is left, and the kernels are emitted.
A_sh = alloc([16], scope="shared")
acc = alloc([1], scope="local")
for k in range(8):
    for j in range(16):
        A_sh[j] = A[16 * k + j]
    for j in range(16):
        acc[0] += A_sh[j]
    if k == 7:
        C[0] = acc[0]
sch.annotate(k, "software_pipeline_stage", [0, 1, 1])
sch.annotate(k, "software_pipeline_order", [0, 1, 2])
sch.annotate(k, "software_pipeline_async_stages", [0])
