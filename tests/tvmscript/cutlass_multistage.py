# The CUTLASS preset (examples/cutlass_multistage.py, its fma written out) as a PrimFunc in TVM 0.27's spelling: the
# size of PrimFunc the parsing benchmark reads (core/benches/explore.rs).
from tvm.script import s_tir as Ts
from tvm.script import tirx as T


@Ts.prim_func
def cutlass_multistage(
    A: T.Buffer((4, 64), "float16"),
    B: T.Buffer((64, 4), "float16"),
):
    A_smem = Ts.sblock_alloc_buffer((4, 4), dtype="float16", scope="shared")
    B_smem = Ts.sblock_alloc_buffer((4, 4), dtype="float16", scope="shared")
    A_frag = Ts.sblock_alloc_buffer((4, 4), dtype="float16", scope="local")
    B_frag = Ts.sblock_alloc_buffer((4, 4), dtype="float16", scope="local")
    accum = Ts.sblock_alloc_buffer((4, 4), dtype="float32", scope="local")
    for k in T.serial(
        16,
        annotations={
            "software_pipeline_stage": [0, 0, 3, 3, 3],
            "software_pipeline_order": [0, 1, 2, 3, 4],
            "software_pipeline_async_stages": [0],
        },
    ):
        for m in T.serial(4):
            for kk in T.serial(4):
                with Ts.sblock("A_smem"):
                    A_smem[m, kk] = A[m, 4 * k + kk]
        for kk in T.serial(4):
            for n in T.serial(4):
                with Ts.sblock("B_smem"):
                    B_smem[kk, n] = B[4 * k + kk, n]
        for m in T.serial(4):
            for kk in T.serial(4):
                with Ts.sblock("A_frag"):
                    Ts.reads(A_smem[m, kk])
                    Ts.writes(A_frag[m, kk])
                    A_frag[m, kk] = A_smem[m, kk]
        for kk in T.serial(4):
            for n in T.serial(4):
                with Ts.sblock("B_frag"):
                    Ts.reads(B_smem[kk, n])
                    Ts.writes(B_frag[kk, n])
                    B_frag[kk, n] = B_smem[kk, n]
        for m in T.serial(4):
            for n in T.serial(4):
                for kk in T.serial(4):
                    with Ts.sblock("mma"):
                        Ts.reads(A_frag[m, kk], B_frag[kk, n], accum[m, n])
                        Ts.writes(accum[m, n])
                        accum[m, n] = T.Cast("float32", A_frag[m, kk]) * T.Cast("float32", B_frag[kk, n]) + accum[m, n]
