# random loop, seed 34
S0 = alloc([3])
S1 = alloc([1])
S2 = alloc([1])
for i in range(5):
    O1[i] = A[i] + 1
    S0[i % 3] = A[i] + 2
    S1[(0 if i % 2 == 0 else 0)] = A[i] + 3
    S2[(i + 2) % 1] = S2[(i + 2) % 1] + S1[min(i + 1, 0)] + S1[max(0 - i, 0)] + 4
    O2[i] = A[(i + 1) % 8] + 5
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1, 1])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [1])
