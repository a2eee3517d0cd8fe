# TVM 0.27's test_s_tir_transform_inject_software_pipeline.py, test_async_producer_interleaving:
# `simple_compute`, annotated by the test's schedule as below (scripts/tvm-suite.py).
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def simple_compute(
    A: T.Buffer((16, 16), "float32"),
    B: T.Buffer((16, 16), "float32"),
    C: T.Buffer((16, 16), "float32"),
):
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in range(16):
            with T.sblock("compute"):
                T.reads(A[tx, i])
                T.writes(C[tx, i])
                A_shared = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                B_shared = T.sblock_alloc_buffer((16, 1), dtype="float32", scope="shared")
                with T.sblock():
                    T.reads(A[tx, i])
                    T.writes(A_shared[tx, 0])
                    A_shared[tx, 0] = A[tx, i]
                with T.sblock():
                    T.reads(B[tx, i])
                    T.writes(B_shared[tx, 0])
                    B_shared[tx, 0] = B[tx, i]
                with T.sblock():
                    T.reads(A_shared[tx, 0], B_shared[tx, 0])
                    T.writes(C[tx, i])
                    C[tx, i] = A_shared[tx, 0] + B_shared[tx, 0]


sch.annotate(i, "software_pipeline_stage", [0, 0, 3])
sch.annotate(i, "software_pipeline_order", [0, 2, 1])
sch.annotate(i, "software_pipeline_async_stages", [0])
