"""GEMM autotuned over tile shapes, pipeline depth, rasterization and, on
Hopper, warp specialization, persistent blocks, thread-block clusters with
TMA multicast and the TMA store of C.

On sm_90a a gemm runs as wgmma when the block has one warpgroup (128
threads) per 64 rows of the tile, or per 128 rows for N up to 128, and its
pipelined copies load whole 128-byte rows (block_K = 64 halves): the Hopper
configurations give 128x256 and 256x128 tiles two consumer warpgroups
(thread_num = 256) and try the producer warpgroup on and off
(T.Pipelined(warp_specialize=...)), the L2 block order (T.use_swizzle)
and persistent blocks (one per SM walking the tiles with T.Persistent,
whose producer warpgroup loads the next tile while the consumers store
this one) or clusters of two blocks (cluster_dims; the two blocks load the
A tile they share, (2, 1), or the B tile, (1, 2), once for both: TMA
multicast). With a producer warpgroup C leaves through shared memory with
stmatrix and TMA stores, or (disable_tma) with 16-byte st.global.
Elsewhere the search is over the mma.sync tiles.
"""

import itertools

import numpy as np

import tilemlir
import tilemlir.language as T

# Dynamic shared memory a block may use on sm_90a (227 KiB).
HOPPER_SHARED_BYTES = 227 * 1024


def device_sms():
    """The SMs of the GPU the kernels will run on; None without one."""
    try:
        from tilemlir.runtime.cuda import num_sms
        return num_sms()
    except (RuntimeError, OSError):
        return None


def get_configs(M, N, K, hopper=False, num_sms=None):
    """The search space. The warp-specialized Hopper configurations also
    come in clusters of two blocks, with C's store without TMA and, given
    `num_sms` (default: the GPU's), as persistent blocks."""
    configs = []
    if hopper:
        num_sms = num_sms or device_sms()
        for (block_M, block_N, thread_num), num_stages, warp_specialize, enable_rasterization in \
                itertools.product([(128, 256, 256), (256, 128, 256), (128, 128, 256),
                                   (64, 128, 128), (64, 64, 128)], [3, 4, 6],
                                  [True, False], [True, False]):
            stage_bytes = (block_M + block_N) * 64 * 2
            if num_stages * stage_bytes > HOPPER_SHARED_BYTES - 2048:
                continue
            variants = [dict()]
            if warp_specialize:
                variants += [dict(tma_store=False), dict(cluster=(2, 1)), dict(cluster=(1, 2))]
                if num_sms:
                    variants += [dict(persistent=num_sms),
                                 dict(persistent=num_sms, tma_store=False)]
            for variant in variants:
                configs.append(dict(dict(block_M=block_M, block_N=block_N, block_K=64,
                                         num_stages=num_stages, thread_num=thread_num,
                                         warp_specialize=warp_specialize,
                                         enable_rasterization=enable_rasterization,
                                         persistent=0, tma_store=True, cluster=None),
                                    **variant))
        return configs
    for block_M, block_N, block_K, num_stages, enable_rasterization in itertools.product(
            [64, 128], [64, 128], [32, 64], [2, 3], [True, False]):
        configs.append(dict(block_M=block_M, block_N=block_N, block_K=block_K,
                            num_stages=num_stages, enable_rasterization=enable_rasterization))
    return configs


def ref_program(A, B):
    return A.astype(np.float32) @ B.astype(np.float32)


def matmul(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=3, thread_num=128,
           enable_rasterization=True, warp_specialize=True, persistent=0, tma_store=True,
           cluster=None, dtype="float16", accum_dtype="float"):

    @T.macro
    def output_tile(A, B, C, A_shared, B_shared, C_local, bx, by):
        T.clear(C_local)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages,
                             warp_specialize=warp_specialize):
            T.copy(A[by * block_M, k * block_K], A_shared)
            T.copy(B[k * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * block_M, bx * block_N], disable_tma=not tma_store)

    # In clusters the grid is whole clusters (the tiles past the edges
    # store nothing).
    cx, cy = cluster or (1, 1)
    grid_x = T.ceildiv(T.ceildiv(N, block_N), cx) * cx
    grid_y = T.ceildiv(T.ceildiv(M, block_M), cy) * cy

    if persistent:
        @T.prim_func
        def main(
                A: T.Tensor((M, K), dtype),
                B: T.Tensor((K, N), dtype),
                C: T.Tensor((M, N), dtype),
        ):
            with T.Kernel(persistent, threads=thread_num) as block:
                A_shared = T.alloc_shared((block_M, block_K), dtype)
                B_shared = T.alloc_shared((block_K, block_N), dtype)
                C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
                for by, bx in T.Persistent([T.ceildiv(M, block_M), T.ceildiv(N, block_N)],
                                           persistent, block,
                                           group_size=10 if enable_rasterization else 1):
                    output_tile(A, B, C, A_shared, B_shared, C_local, bx, by)

        return main

    @T.prim_func
    def main(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(grid_x, grid_y, threads=thread_num, cluster_dims=cluster) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.use_swizzle(panel_size=10, enable=enable_rasterization)
            output_tile(A, B, C, A_shared, B_shared, C_local, bx, by)

    return main


def main(M=512, N=512, K=512, configs=None):
    if configs is None:
        # The Hopper space where the kernels will run on an sm_90 GPU.
        from tilemlir.jit import resolve_target
        hopper = resolve_target("auto").endswith("sm_90a")
        configs = get_configs(M, N, K, hopper=hopper)
    tuner = tilemlir.AutoTuner.from_kernel(kernel=matmul, configs=configs)
    result = (tuner.set_compile_args(out_idx=[-1], target="auto")
              .set_profile_args(ref_prog=ref_program)
              .set_kernel_args(M, N, K)
              .run(warmup=3, rep=20))
    print(f"Best config: {result.config}")
    print(f"Best latency: {result.latency:.4f} ms")
    print(f"Reference latency: {result.ref_latency:.4f} ms")
    return result


if __name__ == "__main__":
    main()
