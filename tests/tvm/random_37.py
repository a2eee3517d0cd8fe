# random loop, seed 37
S0 = alloc([4])
S1 = alloc([2])
S2 = alloc([1])
U_unused = alloc([16], scope="shared")
for i in range(5):
    S0[(2 * i + 1) % 4] = A[i] + 1
    S1[0] = A[i] + 2
    S2[min(i + 1, 0)] = A[i] + 3
    O1[i] = S2[min(i, 0)] + 4
sch.annotate(i, "software_pipeline_stage", [0, 0, 2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [1, 2])
