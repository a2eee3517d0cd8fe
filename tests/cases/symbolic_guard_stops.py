# A statement under a guard that holds at one iteration (random loop 13750) under a symbolic extent: past
# that iteration the drain lets every later group stay, however many N adds (`max(N, 2) - 7`).
S0 = alloc([16])
S1 = alloc([3])
for i in range(N):
    if i == 6:
        S0[i + 2] = A[i] + 1
    S1[(2 if i % 2 == 0 else 0)] = A[i] + 2
    O1[i] = A[i] + 3
sch.annotate(i, "software_pipeline_stage", [2, 0, 0])
sch.annotate(i, "software_pipeline_order", [1, 2, 0])
sch.annotate(i, "software_pipeline_async_stages", [2])
