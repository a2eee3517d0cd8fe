# TVM 0.27's test_s_tir_transform_inject_software_pipeline.py, test_less_loop_than_num_stage_dynamic:
# `before` (scripts/tvm-suite.py).
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def before(a: T.handle, b: T.handle):
    K = T.int32()
    A = T.match_buffer(a, [K], "float32")
    E = T.match_buffer(b, [K], "float32")
    for i in T.serial(
        0,
        K,
        annotations={
            "software_pipeline_stage": [0, 1, 2, 3],
            "software_pipeline_order": [0, 1, 2, 3],
        },
    ):
        with T.sblock("compute"):
            B = T.sblock_alloc_buffer((1), dtype="float32", scope="shared")
            C = T.sblock_alloc_buffer((1), dtype="float32", scope="shared")
            D = T.sblock_alloc_buffer((1), dtype="float32", scope="shared")
            with T.sblock():
                B[0] = A[i] * T.float32(2)
            with T.sblock():
                C[0] = B[0] + T.float32(3)
            with T.sblock():
                D[0] = C[0] + T.float32(4)
            with T.sblock():
                E[i] = D[0] + T.float32(5)
