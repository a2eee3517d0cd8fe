# A tile operation Stagecraft does not read: a located error naming it.
import tilelang
import tilelang.language as T

M = 8
N = 8
K = 32
block_M = 4
block_N = 4
block_K = 4
dtype = "float16"
accum_dtype = "float"


@T.prim_func
def main(
    A: T.Tensor((M, K), dtype),
    B: T.Tensor((K, N), dtype),
    C: T.Tensor((M, N), dtype),
):
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[by * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
            T.reduce_max(C_local, C_max, dim=1)
        T.copy(C_local, C[by * block_M, bx * block_N])
