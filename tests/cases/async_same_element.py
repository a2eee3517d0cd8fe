# Two statements of one async stage write the same element (issue 39): the transform gives each
# its own commit group with a wait between them, as a group's copies land in no set order. TVM
# 0.27 commits both in one group (tests/pipelined/same_element_tvm_one_group.py), which races.
S0 = alloc([2])
for i in range(8):
    S0[i % 2] = A[i]
    S0[i % 2] = B[i]
    C[i] = S0[i % 2] + 1
    D[i] = A[i]

sch.annotate(i, "software_pipeline_stage", [1, 1, 2, 2])
sch.annotate(i, "software_pipeline_order", [0, 1, 2, 3])
sch.annotate(i, "software_pipeline_async_stages", [1])
