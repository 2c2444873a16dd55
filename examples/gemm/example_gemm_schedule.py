"""GEMM with an explicit schedule: block rasterization (T.use_swizzle), a
swizzled shared layout (T.annotate_layout), a pipelined K loop with explicit
stages, and B loaded element-wise with T.Parallel instead of T.copy."""

import numpy as np

import tilemlir
import tilemlir.language as T
from tilemlir.layout import make_swizzled_layout


def matmul(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):

    @T.prim_func
    def gemm_schedule(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.annotate_layout({A_shared: make_swizzled_layout(A_shared)})
            # Enable rasterization for better L2 cache locality
            T.use_swizzle(panel_size=10)

            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3,
                                  order=[0, 1, 2], stage=[0, 0, 1]):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                # Instead of T.copy, a parallel loop: the compiler maps
                # threads to elements and vectorizes.
                for k, j in T.Parallel(block_K, block_N):
                    B_shared[k, j] = B[ko * block_K + k, bx * block_N + j]
                T.gemm(A_shared, B_shared, C_local)

            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm_schedule


def main(M=512, N=512, K=512, block_M=128, block_N=128, block_K=32):
    # The element-wise load of B has no bounds check: sizes must be multiples
    # of the tiles (T.copy handles any size).
    assert M % block_M == 0 and N % block_N == 0 and K % block_K == 0
    kernel = tilemlir.compile(matmul(M, N, K, block_M, block_N, block_K), out_idx=[2])
    rng = np.random.default_rng(1)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = kernel(a, b)
    np.testing.assert_allclose(c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-2, atol=1e-2)
    print("gemm_schedule matches the numpy reference.")
    return kernel


if __name__ == "__main__":
    main()
