"""Kernels of the GPU benchmark set, in TileLang's style."""

import tilemlir.language as T


def gemm(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=3, threads=128,
         dtype="float16", accum_dtype="float", trans_A=False, trans_B=False, out_dtype=None,
         swizzle_panel=None, warp_specialize=True, persistent=None, tma_store=True,
         cluster=None, c_shared=False):
    """C = op(A) op(B). With `persistent` = a block count (the SMs), that
    many blocks walk the output tiles (T.Persistent, in groups of
    `swizzle_panel` or 8 rows of tiles); otherwise one block per tile, in
    thread-block clusters of `cluster` = (x, y) blocks if given (the grid
    rounded up to whole clusters; on sm_90a the blocks of a cluster multicast
    the operand they share: A for (2, 1), B for (1, 2)).
    `tma_store=False` keeps C's store from TMA (disable_tma). `c_shared`:
    C leaves through a shared tile allocated with the others, as TileLang's
    Hopper GEMM writes it (T.copy(C_local, C_shared); T.copy(C_shared, C[..]))."""
    if persistent and cluster:
        raise ValueError("persistent blocks in clusters are not supported")
    cx, cy = cluster or (1, 1)
    grid_x = T.ceildiv(T.ceildiv(N, block_N), cx) * cx
    grid_y = T.ceildiv(T.ceildiv(M, block_M), cy) * cy
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_tile = (block_K, block_M) if trans_A else (block_M, block_K)
    B_tile = (block_N, block_K) if trans_B else (block_K, block_N)

    if c_shared and (persistent or not tma_store):
        raise ValueError("c_shared is TileLang's one-tile-per-block epilogue: "
                         "not with persistent blocks or tma_store=False")

    @T.macro
    def tile(A, B, A_shared, B_shared, C_local, bx, by):
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages,
                             warp_specialize=warp_specialize):
            if trans_A:
                T.copy(A[k * block_K, by * block_M], A_shared)
            else:
                T.copy(A[by * block_M, k * block_K], A_shared)
            if trans_B:
                T.copy(B[bx * block_N, k * block_K], B_shared)
            else:
                T.copy(B[k * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local, transpose_A=trans_A, transpose_B=trans_B)

    if persistent:
        @T.prim_func
        def gemm_kernel(A: T.Tensor(A_shape, dtype), B: T.Tensor(B_shape, dtype),
                        C: T.Tensor((M, N), out_dtype or dtype)):
            with T.Kernel(persistent, threads=threads) as block:
                A_shared = T.alloc_shared(A_tile, dtype)
                B_shared = T.alloc_shared(B_tile, dtype)
                C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
                for by, bx in T.Persistent([T.ceildiv(M, block_M), T.ceildiv(N, block_N)],
                                           persistent, block, group_size=swizzle_panel or 8):
                    tile(A, B, A_shared, B_shared, C_local, bx, by)
                    T.copy(C_local, C[by * block_M, bx * block_N], disable_tma=not tma_store)
        return gemm_kernel

    @T.prim_func
    def gemm_kernel(A: T.Tensor(A_shape, dtype), B: T.Tensor(B_shape, dtype),
                    C: T.Tensor((M, N), out_dtype or dtype)):
        with T.Kernel(grid_x, grid_y, threads=threads, cluster_dims=cluster) as (bx, by):
            A_shared = T.alloc_shared(A_tile, dtype)
            B_shared = T.alloc_shared(B_tile, dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            if c_shared:
                C_shared = T.alloc_shared((block_M, block_N), out_dtype or dtype)
            if swizzle_panel:
                T.use_swizzle(panel_size=swizzle_panel)
            tile(A, B, A_shared, B_shared, C_local, bx, by)
            if c_shared:
                T.copy(C_local, C_shared)
                T.copy(C_shared, C[by * block_M, bx * block_N])
            else:
                T.copy(C_local, C[by * block_M, bx * block_N], disable_tma=not tma_store)

    return gemm_kernel


def softmax(M, N, block_M=16, threads=128, dtype="float16", accum_dtype="float"):
    """Row softmax of an M x N matrix (N fits one tile)."""

    @T.prim_func
    def softmax_kernel(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_fragment((block_M, N), accum_dtype)
            row_max = T.alloc_fragment((block_M,), accum_dtype)
            row_sum = T.alloc_fragment((block_M,), accum_dtype)
            T.copy(X[bx * block_M, 0], x)
            T.reduce_max(x, row_max, dim=1)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = T.exp(x[i, j] - row_max[i])
            T.reduce_sum(x, row_sum, dim=1)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = x[i, j] / row_sum[i]
            T.copy(x, Y[bx * block_M, 0])

    return softmax_kernel


def row_sum(M, N, block_M=16, threads=128, dtype="float16", accum_dtype="float"):
    """Sums of the rows of an M x N matrix (N fits one tile), in f32."""

    @T.prim_func
    def row_sum_kernel(X: T.Tensor((M, N), dtype), Y: T.Tensor((M,), accum_dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_fragment((block_M, N), accum_dtype)
            s = T.alloc_fragment((block_M,), accum_dtype)
            T.copy(X[bx * block_M, 0], x)
            T.reduce_sum(x, s, dim=1)
            T.copy(s, Y[bx * block_M])

    return row_sum_kernel


def gemm_rowmax(M, N, K, block_M=64, block_N=64, block_K=32, threads=256, dtype="float16"):
    """The row maxima of C = A B, one per row and block of N columns: a
    gemm whose accumulator rows span several warps (the default policy
    splits a 64x64 tile over 8 warps 2 x 4), reduced in place."""

    @T.prim_func
    def gemm_rowmax_kernel(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
                           R: T.Tensor((T.ceildiv(N, block_N), M), "float")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float")
            row_max = T.alloc_fragment((block_M,), "float")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.reduce_max(C_local, row_max, dim=1)
            T.copy(row_max, R[bx, by * block_M])

    return gemm_rowmax_kernel


def gemm_sp(M, N, K, block_M=128, block_N=128, block_K=64, threads=128, dtype="float16",
            accum_dtype="float"):
    """C = A * B with a 2:4-sparse A given as its kept values (M x K/2) and
    int16 metadata (M x K/16: 2 bits per kept value, its position in its
    group of 4)."""
    e_factor = 16

    @T.prim_func
    def gemm_sp_kernel(A_sparse: T.Tensor((M, K // 2), dtype),
                       E: T.Tensor((M, K // e_factor), "int16"),
                       B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K // 2), dtype)
            E_shared = T.alloc_shared((block_M, block_K // e_factor), "int16")
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A_sparse[by * block_M, k * block_K // 2], A_shared)
                T.copy(E[by * block_M, k * block_K // e_factor], E_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm_sp(A_shared, E_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm_sp_kernel


def make_sparse(M, K, rng):
    """(values M x K/2, int16 metadata M x K/16, dense M x K) of a random
    2:4-sparse matrix, as numpy arrays."""
    import numpy as np
    dense = np.zeros((M, K), dtype=np.float32)
    values = rng.standard_normal((M, K // 2)).astype(np.float16)
    meta = np.zeros((M, K // 16), dtype=np.uint16)
    for g in range(K // 4):
        # Two positions out of 4 in each group, per row.
        choice = np.sort(np.argsort(rng.random((M, 4)), axis=1)[:, :2], axis=1)
        for t in range(2):
            j = 2 * g + t
            pos = choice[:, t]
            dense[np.arange(M), 4 * g + pos] = values[:, j].astype(np.float32)
            meta[:, j // 8] |= (pos.astype(np.uint16) << (2 * (j % 8))).astype(np.uint16)
    return values, meta.view(np.int16), dense
