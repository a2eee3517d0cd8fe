# TVM's test_less_loop_than_num_stage, in TVM 0.27's spelling: 2 iterations, 4 stages.
from tvm.script import s_tir as Ts
from tvm.script import tirx as T


@Ts.prim_func
def before(A: T.Buffer((2,), "float32"), E: T.Buffer((2,), "float32")):
    for i in T.serial(
        0,
        2,
        annotations={
            "software_pipeline_stage": [0, 1, 2, 3],
            "software_pipeline_order": [0, 1, 2, 3],
        },
    ):
        with Ts.sblock("compute"):
            B = Ts.sblock_alloc_buffer((1), dtype="float32", scope="shared")
            C = Ts.sblock_alloc_buffer((1), dtype="float32", scope="shared")
            D = Ts.sblock_alloc_buffer((1), dtype="float32", scope="shared")
            with Ts.sblock():
                B[0] = A[i] * T.float32(2)
            with Ts.sblock():
                C[0] = B[0] + T.float32(3)
            with Ts.sblock():
                D[0] = C[0] + T.float32(4)
            with Ts.sblock():
                E[i] = D[0] + T.float32(5)
