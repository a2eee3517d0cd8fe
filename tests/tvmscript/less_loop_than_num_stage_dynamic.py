# TVM's test_less_loop_than_num_stage_dynamic: a symbolic extent K that may be below the 4 stages.
from tvm.script import tir as T


@T.prim_func
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
        with T.block("compute"):
            B = T.alloc_buffer((1), dtype="float32", scope="shared")
            C = T.alloc_buffer((1), dtype="float32", scope="shared")
            D = T.alloc_buffer((1), dtype="float32", scope="shared")
            with T.block():
                B[0] = A[i] * T.float32(2)
            with T.block():
                C[0] = B[0] + T.float32(3)
            with T.block():
                D[0] = C[0] + T.float32(4)
            with T.block():
                E[i] = D[0] + T.float32(5)
