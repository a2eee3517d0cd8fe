# tile-ai/tilelang's examples/gemm/example_gemm.py `matmul`, as written there (a factory whose
# parameters carry the sizes, B transposed, T.use_swizzle, an epilogue through shared memory), with
# defaults giving 4×4 tiles. num_stages=2: copies in stage 0, asynchronous, the GEMM in stage 1.
import tilelang as tl
import tilelang.language as T


def matmul(M=8,
           N=8,
           K=32,
           block_M=4,
           block_N=4,
           block_K=4,
           num_stages=2,
           thread_num=128,
           enable_rasteration=True,
           dtype="float16",
           accum_dtype="float"):

    @T.prim_func
    def main(
            A: T.Buffer((M, K), dtype),
            B: T.Buffer((N, K), dtype),
            C: T.Buffer((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=thread_num) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)
            T.use_swizzle(panel_size=10, enable=enable_rasteration)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(
                    A_shared,
                    B_shared,
                    C_local,
                    transpose_B=True,
                )
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return main
