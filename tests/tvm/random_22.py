# random loop, seed 22
S0 = alloc([4])
U_unused = alloc([16], scope="shared")
for i in range(6):
    S0[(i // 2) % 4] = A[i] + 1
    O1[i] = S0[min(i, 3)] + 2
    O2[i] = S0[(1 if i % 2 == 0 else 3)] + 3
sch.annotate(i, "software_pipeline_stage", [1, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2])
sch.annotate(i, "software_pipeline_async_stages", [0, 1, 2])
