# A guard that holds at one iteration of the body only: the stage-1 statement under `if k == 0:`
# runs in the body's first step (k = 1, its iteration 0) and not in the others. The interpreter
# and the timeline run it; the emitters, which write no branches, refuse it and say why.
A_sh = alloc([16], scope="shared")
acc = alloc([1], scope="local")
for k in range(8):
    for j in range(16):
        A_sh[j] = A[16 * k + j]
    for j in range(16):
        acc[0] += A_sh[j]
    if k == 0:
        D[0] = A_sh[0]
    if k == 7:
        C[0] = acc[0]
sch.annotate(k, "software_pipeline_stage", [0, 1, 1, 1])
sch.annotate(k, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(k, "software_pipeline_async_stages", [0])
