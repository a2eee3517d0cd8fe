# A statement under a guard that stops it (`if i < 4:`, random loop 11648) under a symbolic extent: from the
# N whose epilogue runs iterations past its last meeting with its producer, the epilogue waits for nothing.
S0 = alloc([32])
for i in range(N):
    if i < 4:
        S0[0] = A[(i + 1) % 8] + 1
    O1[i] = S0[i + 1] + A[i] + 2
sch.annotate(i, "software_pipeline_stage", [2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [2])
