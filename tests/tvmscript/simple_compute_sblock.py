# TVM's tests/python/tir-transform/test_tir_transform_inject_software_pipeline.py, `simple_compute`
# (gen_simple_compute(1)), in TVM 0.27's spelling (`Ts.sblock`, tests/python/s_tir/transform/).
from tvm.script import s_tir as Ts
from tvm.script import tirx as T


@Ts.prim_func
def simple_compute(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in T.serial(
            0,
            16,
            annotations={
                "software_pipeline_stage": [0, 1],
                "software_pipeline_order": [0, 1],
            },
        ):
            with Ts.sblock("compute"):
                Ts.reads(A[tx, i])
                Ts.writes(C[tx, i])
                B = Ts.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                with Ts.sblock():
                    Ts.reads(A[tx, i])
                    Ts.writes(B[tx, 0])
                    B[tx, 0] = A[tx, i] * T.float32(2)
                with Ts.sblock():
                    Ts.reads(B[tx, 0])
                    Ts.writes(C[tx, i])
                    C[tx, i] = B[tx, 0] + T.float32(1)
