# random loop, seed 7
S0 = alloc([3])
U_unused = alloc([16], scope="shared")
for i in range(9):
    S0[min(i, 2)] = A[i] + 1
    O1[i] = S0[max(2 - i, 0)] + 2
sch.annotate(i, "software_pipeline_stage", [3, 3])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [1])
