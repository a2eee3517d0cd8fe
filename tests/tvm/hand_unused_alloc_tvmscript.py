# A PrimFunc whose pipelined loop's block allocates `U`, which no statement touches: TVM 0.27's
# ComputeBufferVersions looks it up in its table of accesses and fails (unordered_map::at).
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for i in T.serial(0, 16, annotations={"software_pipeline_stage": [0, 1], "software_pipeline_order": [0, 1]}):
        with T.sblock():
            B = T.sblock_alloc_buffer((1,), "float32", scope="shared")
            U = T.sblock_alloc_buffer((4,), "float32", scope="shared")
            with T.sblock():
                B[0] = A[i] * T.float32(2)
            with T.sblock():
                C[i] = B[0] + T.float32(1)
