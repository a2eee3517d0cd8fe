# TVM 0.27's test_s_tir_transform_inject_software_pipeline.py, test_three_stage_compute_two_stage_async:
# `three_stage_compute`, annotated by the test's schedule as below (scripts/tvm-suite.py).
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def three_stage_compute(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in T.serial(
            0,
            16,
            annotations={
                "software_pipeline_stage": [0, 1, 2],
                "software_pipeline_order": [0, 1, 2],
            },
        ):
            with T.sblock("compute"):
                T.reads(A[tx, i])
                T.writes(D[tx, i])
                B = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                C = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                with T.sblock():
                    T.reads(A[tx, i])
                    T.writes(B[tx, 0])
                    B[tx, 0] = A[tx, i] * T.float32(2)
                with T.sblock():
                    T.reads(B[tx, 0])
                    T.writes(C[tx, 0])
                    C[tx, 0] = B[tx, 0] + T.float32(2)
                with T.sblock():
                    T.reads(C[tx, 0])
                    T.writes(D[tx, i])
                    D[tx, i] = C[tx, 0] + T.float32(1)


sch.annotate(i, "software_pipeline_async_stages", [0, 1])
