# A statement under `if i < 1:` in the last group of each step (random loop 15165) under a symbolic extent:
# from N = 2 the last group is empty, and the drain lets it stay.
S0 = alloc([8])
for i in range(N):
    S0[(i + 5) % 8] = A[(i + 1) % 8] + 1
    if i < 1:
        S0[i % 8] = S0[(i // 2) % 8] + A[i] + 2
    O1[i] = A[(i + 1) % 8] + 3
sch.annotate(i, "software_pipeline_stage", [0, 0, 0])
sch.annotate(i, "software_pipeline_order", [1, 2, 0])
sch.annotate(i, "software_pipeline_async_stages", [0])
