# TVM's test_tir_transform_inject_software_pipeline.py, `nested_pipeline_prefetch_inner`, in TVM 0.27's spelling:
# the inner loop over `j` is pipelined first (the annotated `j` loop is read as `j_1`).
from tvm.script import s_tir as Ts
from tvm.script import tirx as T


@Ts.prim_func
def nested_pipeline_prefetch_inner(
    A: T.Buffer((16, 16, 16), "float32"), C: T.Buffer((16, 16, 16), "float32")
):
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in T.serial(
            0,
            16,
            annotations={
                "software_pipeline_stage": [0, 0, 1, 1],
                "software_pipeline_order": [0, 2, 1, 3],
            },
        ):
            with Ts.sblock():
                Ts.reads(A[tx, i, 0:16])
                Ts.writes(C[tx, i, 0:16])
                A_shared = Ts.sblock_alloc_buffer((16, 1, 16), dtype="float32", scope="shared")
                for j in T.serial(0, 16):
                    with Ts.sblock():
                        Ts.reads(A[tx, i, j])
                        Ts.writes(A_shared[tx, 0, j])
                        A_shared[tx, 0, j] = A[tx, i, j]
                for j in T.serial(
                    0,
                    16,
                    annotations={
                        "software_pipeline_stage": [0, 1],
                        "software_pipeline_order": [0, 1],
                    },
                ):
                    with Ts.sblock():
                        Ts.reads(A_shared[tx, 0, j])
                        Ts.writes(C[tx, i, j])
                        B = Ts.sblock_alloc_buffer((16, 1, 1), dtype="float32", scope="shared")
                        with Ts.sblock():
                            Ts.reads(A_shared[tx, i, j])
                            Ts.writes(B[tx, i, 0])
                            B[tx, i, 0] = A_shared[tx, 0, j] * T.float32(2)
                        with Ts.sblock():
                            Ts.reads(B[tx, i, 0])
                            Ts.writes(C[tx, i, j])
                            C[tx, i, j] = B[tx, i, 0] + T.float32(1)
