# TVM's test_async_producer_interleaving: the PrimFunc has no annotations; the test schedules its
# loop afterwards with sch.annotate, as here.
from tvm.script import tir as T


@T.prim_func
def simple_compute(
    A: T.Buffer((16, 16), "float32"),
    B: T.Buffer((16, 16), "float32"),
    C: T.Buffer((16, 16), "float32"),
):
    for tx in T.thread_binding(0, 16, thread="threadIdx.x"):
        for i in range(16):
            with T.block("compute"):
                T.reads(A[tx, i])
                T.writes(C[tx, i])
                A_shared = T.alloc_buffer((16, 1), dtype="float32", scope="shared")
                B_shared = T.alloc_buffer((16, 1), dtype="float32", scope="shared")
                with T.block():
                    T.reads(A[tx, i])
                    T.writes(A_shared[tx, 0])
                    A_shared[tx, 0] = A[tx, i]
                with T.block():
                    T.reads(B[tx, i])
                    T.writes(B_shared[tx, 0])
                    B_shared[tx, 0] = B[tx, i]
                with T.block():
                    T.reads(A_shared[tx, 0], B_shared[tx, 0])
                    T.writes(C[tx, i])
                    C[tx, i] = A_shared[tx, 0] + B_shared[tx, 0]


sch.annotate(i, ann_key="software_pipeline_stage", ann_val=[0, 0, 3])
sch.annotate(i, ann_key="software_pipeline_order", ann_val=[0, 2, 1])
sch.annotate(i, ann_key="software_pipeline_async_stages", ann_val=[0])
