# A PrimFunc whose pipelined loop's body is two blocks, the first of two statements with an
# allocation: TVM splices that block's statements into the pipeline, and its allocation with them,
# so the pass versions B.
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(0, 16, annotations={"software_pipeline_stage": [0, 1, 1], "software_pipeline_order": [0, 1, 2]}):
        with T.sblock():
            B = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            B[0] = A[i] * T.float32(2)
            C[i] = B[0] + T.float32(1)
        with T.sblock():
            C[i] = C[i] + T.float32(1)
