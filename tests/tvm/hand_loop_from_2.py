# A loop that starts at 2: TVM's sections start at the loop's minimum, its ring slot is
# (i - 2) mod versions, and its normalized analyzer knows the variable in Range(min, extent).
B = alloc([1])
for i in range(2, 12):
    B[0] = A[i] + 1
    C[i] = B[0] * 2

sch.annotate(i, "software_pipeline_stage", [0, 2])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
