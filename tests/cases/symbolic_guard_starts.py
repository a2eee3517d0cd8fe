# A statement under a guard that starts it late (random loop 2675) under a symbolic extent: at the N
# that run it at no iteration its queue's groups are all empty, and the drain lets them stay.
S0 = alloc([1])
S1 = alloc([4])
S2 = alloc([3])
for i in range(N):
    O1[i] = A[i] + 1
    S0[i % 1] = A[(i + 1) % 8] + 2
    S1[min(i, 3)] = S1[min(i, 3)] + A[(i + 1) % 8] + 3
    if i >= 5:
        S2[max(2 - i, 0)] = A[(i + 1) % 8] + 4
    O2[i] = A[(i + 1) % 8] + 5
sch.annotate(i, "software_pipeline_stage", [0, 0, 0, 1, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3, 4])
sch.annotate(i, "software_pipeline_async_stages", [1])
