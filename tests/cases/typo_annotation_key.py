# A misspelled key (no final s) is a warning on its own line, with "did you mean": without it the
# whole schedule silently runs synchronously. A key Stagecraft does not read is a note.
B = alloc([1])
for i in range(16):
    B[0] = A[i] + 1
    C[i] = B[0] + 1

sch.annotate(i, "software_pipeline_stage", [0, 1])
sch.annotate(i, "software_pipeline_order", [0, 1])
sch.annotate(i, "software_pipeline_async_stage", [0])
sch.annotate(i, "pragma_loop_partition_hint", [1])
