# The Stagecraft twin of ../cutlass_multistage.py: examples/cutlass_multistage.py, its fma written out.
A_smem = alloc([4, 4], scope="shared", dtype="float16")
B_smem = alloc([4, 4], scope="shared", dtype="float16")
A_frag = alloc([4, 4], scope="local", dtype="float16")
B_frag = alloc([4, 4], scope="local", dtype="float16")
accum = alloc([4, 4], scope="local")
for k in range(16):
    for m in range(4):
        for kk in range(4):
            A_smem[m, kk] = A[m, 4 * k + kk]
    for kk in range(4):
        for n in range(4):
            B_smem[kk, n] = B[4 * k + kk, n]
    for m in range(4):
        for kk in range(4):
            A_frag[m, kk] = A_smem[m, kk]
    for kk in range(4):
        for n in range(4):
            B_frag[kk, n] = B_smem[kk, n]
    for m in range(4):
        for n in range(4):
            for kk in range(4):
                accum[m, n] = A_frag[m, kk] * B_frag[kk, n] + accum[m, n]

sch.annotate(k, "software_pipeline_stage", [0, 0, 3, 3, 3])
sch.annotate(k, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(k, "software_pipeline_async_stages", [0])
