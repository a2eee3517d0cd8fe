# TVM's test_error_reorder (`simple_compute_incorrect_reorder`, TVM 0.27's spelling): refused.
from tvm.script import s_tir as Ts
from tvm.script import tirx as T



@Ts.prim_func
def simple_compute_incorrect_reorder(
    A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")
):
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in T.serial(
            0,
            16,
            annotations={
                "software_pipeline_stage": [0, 1, 1],
                "software_pipeline_order": [0, 2, 1],
            },
        ):
            with Ts.sblock():
                Ts.reads(A[tx, i])
                Ts.writes(D[tx, i])
                B = Ts.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                C = Ts.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                with Ts.sblock():
                    Ts.reads(A[tx, i])
                    Ts.writes(B[tx, 0])
                    B[tx, 0] = A[tx, i] * T.float32(2)
                with Ts.sblock():
                    Ts.reads(B[tx, 0])
                    Ts.writes(C[tx, 0])
                    C[tx, 0] = B[tx, 0] + T.float32(2)
                with Ts.sblock():
                    Ts.reads(C[tx, 0])
                    Ts.writes(D[tx, i])
                    D[tx, i] = C[tx, 0] + T.float32(1)
