# TVM's test_tir_transform_inject_software_pipeline.py, `dag_interleaving`, in TVM 0.27's spelling
# (tests/python/s_tir/transform/, `Ts.sblock`).
from tvm.script import s_tir as Ts
from tvm.script import tirx as T


@Ts.prim_func
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
            with Ts.sblock():
                Ts.reads(A[tx, i])
                Ts.writes(C[tx, i])
                AS = Ts.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                BS = Ts.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                AL = Ts.sblock_alloc_buffer((1, 1), dtype="float32", scope="local")
                BL = Ts.sblock_alloc_buffer((1, 1), dtype="float32", scope="local")
                with Ts.sblock():
                    Ts.reads(A[tx, i])
                    Ts.writes(AS[tx, 0])
                    AS[tx, 0] = A[tx, i] * T.float32(2)
                with Ts.sblock():
                    Ts.reads(AS[tx, 0])
                    Ts.writes(AL[0, 0])
                    AL[0, 0] = AS[tx, 0]
                with Ts.sblock():
                    Ts.reads(B[tx, i])
                    Ts.writes(BS[tx, 0])
                    BS[tx, 0] = B[tx, i] + T.float32(2)
                with Ts.sblock():
                    Ts.reads(BS[tx, 0])
                    Ts.writes(BL[0, 0])
                    BL[0, 0] = BS[tx, 0]
                with Ts.sblock():
                    Ts.reads(AL[0, 0], BL[0, 0])
                    Ts.writes(C[tx, i])
                    C[tx, i] = AL[0, 0] * BL[0, 0]
