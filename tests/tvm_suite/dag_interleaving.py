# TVM 0.27's test_s_tir_transform_inject_software_pipeline.py, test_dag_interleaving:
# `dag_interleaving` (scripts/tvm-suite.py).
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def dag_interleaving(
    A: T.Buffer((16, 16), "float32"),
    B: T.Buffer((16, 16), "float32"),
    C: T.Buffer((16, 16), "float32"),
) -> None:
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in T.serial(
            0,
            16,
            annotations={
                "software_pipeline_stage": [0, 0, 0, 0, 1],
                "software_pipeline_order": [0, 2, 1, 3, 4],
            },
        ):
            with T.sblock():
                T.reads(A[tx, i])
                T.writes(C[tx, i])
                AS = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                BS = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                AL = T.sblock_alloc_buffer((1, 1), dtype="float32", scope="local")
                BL = T.sblock_alloc_buffer((1, 1), dtype="float32", scope="local")
                with T.sblock():
                    T.reads(A[tx, i])
                    T.writes(AS[tx, 0])
                    AS[tx, 0] = A[tx, i] * T.float32(2)
                with T.sblock():
                    T.reads(AS[tx, 0])
                    T.writes(AL[0, 0])
                    AL[0, 0] = AS[tx, 0]
                with T.sblock():
                    T.reads(B[tx, i])
                    T.writes(BS[tx, 0])
                    BS[tx, 0] = B[tx, i] + T.float32(2)
                with T.sblock():
                    T.reads(BS[tx, 0])
                    T.writes(BL[0, 0])
                    BL[0, 0] = BS[tx, 0]
                with T.sblock():
                    T.reads(AL[0, 0], BL[0, 0])
                    T.writes(C[tx, i])
                    C[tx, i] = AL[0, 0] * BL[0, 0]
