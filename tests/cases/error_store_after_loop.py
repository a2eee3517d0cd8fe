# A store after the loop (a GEMM's epilogue) is not part of the pipeline: the hint says how to keep
# it, as the last iteration's statement (tests/cases/store_in_last_iteration.py).
A_sh = alloc([16], scope="shared")
acc = alloc([1], scope="local")
for k in range(8):
    for j in range(16):
        A_sh[j] = A[16 * k + j]
    for j in range(16):
        acc[0] += A_sh[j]
C[0] = acc[0]
sch.annotate(k, "software_pipeline_stage", [0, 1])
sch.annotate(k, "software_pipeline_order", [0, 1])
sch.annotate(k, "software_pipeline_async_stages", [0])
