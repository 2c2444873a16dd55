"""A persistent GEMM, as TileLang writes it (T.Persistent), next to the
one-block-per-tile kernel it replaces.

The grid is one block per SM; each block walks the output tiles block_id,
block_id + sm_num, ... in groups of `group_size` tile rows (L2 locality).
On sm_90a the K loop inside keeps its TMA pipeline and producer warpgroup
across tiles: the producer loads the next tile while the consumers store
this one. Runs on the default target (CPU here) and checks itself against
numpy.
"""

import numpy as np

import tilemlir
import tilemlir.language as T


def num_sms(default=132):
    """The GPU's SM count (TileLang: driver.get_num_sms()); `default` where
    there is no GPU (the CPU target runs any block count)."""
    try:
        from tilemlir.runtime.cuda import num_sms as query
        return query()
    except (RuntimeError, OSError):
        return default


def output_tile(K, block_M, block_N, block_K, num_stages):
    """The tile body both kernels share: C[bx, by] = A[bx, :] B[:, by]."""

    @T.macro
    def tile(A, B, C, A_shared, B_shared, C_local, bx, by):
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
            T.copy(A[bx * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, by * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[bx * block_M, by * block_N])

    return tile


def matmul_persistent(M, N, K, block_M, block_N, block_K, threads, num_stages, sm_num,
                      dtype="float16", accum_dtype="float"):
    tile = output_tile(K, block_M, block_N, block_K, num_stages)

    @T.prim_func
    def main(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(sm_num, threads=threads) as block_id:
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            for bx, by in T.Persistent([T.ceildiv(M, block_M), T.ceildiv(N, block_N)], sm_num,
                                       block_id):
                tile(A, B, C, A_shared, B_shared, C_local, bx, by)

    return main


def matmul_non_persistent(M, N, K, block_M, block_N, block_K, threads, num_stages,
                          dtype="float16", accum_dtype="float"):
    tile = output_tile(K, block_M, block_N, block_K, num_stages)

    @T.prim_func
    def main(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M), T.ceildiv(N, block_N), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.use_swizzle(panel_size=8)
            tile(A, B, C, A_shared, B_shared, C_local, bx, by)

    return main


def main(M=1024, N=1024, K=512, block_M=128, block_N=128, block_K=64, threads=256,
         num_stages=3, sm_num=None):
    sm_num = sm_num or num_sms()
    persistent = tilemlir.compile(
        matmul_persistent(M, N, K, block_M, block_N, block_K, threads, num_stages, sm_num),
        out_idx=[-1])
    plain = tilemlir.compile(
        matmul_non_persistent(M, N, K, block_M, block_N, block_K, threads, num_stages),
        out_idx=[-1])
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    for name, kernel in (("persistent", persistent), ("one block per tile", plain)):
        c = kernel(a, b)
        np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-1)
        print(f"{name}: matches numpy")
    return persistent


if __name__ == "__main__":
    main()
