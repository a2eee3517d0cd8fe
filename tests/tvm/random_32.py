# random loop, seed 32
S0 = alloc([16])
S1 = alloc([8])
S2 = alloc([4])
U_unused = alloc([16], scope="shared")
for i in range(5):
    if i % 2 == 0:
        S0[i % 16] = A[i] + 1
    S1[max(7 - i, 0)] = A[i] + 2
    S2[(i + 2) % 4] = S1[0] + 3
    O1[i] = A[(i + 1) % 8] + 4
    O2[i] = S1[(2 if i % 2 == 0 else 7)] + 5
sch.annotate(i, "software_pipeline_stage", [0, 1, 1, 1, 0])
sch.annotate(i, "software_pipeline_order", [0, 1, 3, 2, 4])
sch.annotate(i, "software_pipeline_async_stages", [])
