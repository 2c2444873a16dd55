"""A grid of TileLang-style sm_90a kernels over the tile configurations
that matter to ptxas: block sizes, threads, stages, GEMM epilogues through
a shared tile (C_shared) or not, block swizzle or not, and flash attention.
It covers every value of each dimension without their full product.

python/test/test_ptxas_grid.py assembles each with `ptxas -v` and fails on
a stack frame, a spill or a serialized wgmma; benchmark/compile_time.py
times each from Python to cubin."""

import kernels
from build_bundles import _load_flash_attention

# GEMMs at 4096^3 fp16 (64 or 128 iterations of K: the trip counts of
# TileLang's benchmarks): block_M, block_N, block_K, threads, num_stages,
# C_shared, swizzle panel (None: no T.use_swizzle).
GEMMS = [
    # TileLang's Hopper GEMM, all six variants of issue 13.
    (128, 256, 64, 256, 3, True, None),
    (128, 256, 64, 256, 3, True, 10),
    (128, 256, 64, 256, 3, True, 8),
    (128, 256, 64, 256, 4, True, None),
    (128, 256, 64, 256, 4, True, 10),
    (128, 256, 64, 256, 4, True, 8),
    # The same without C_shared, and other tiles.
    (128, 256, 64, 256, 3, False, None),
    (128, 256, 64, 256, 4, False, 10),
    (128, 128, 64, 256, 3, False, None),
    (128, 128, 64, 256, 4, True, 8),
    (128, 128, 32, 128, 2, True, None),
    (128, 128, 64, 128, 3, False, 10),
    (256, 128, 64, 256, 3, True, None),
    (256, 128, 32, 256, 2, False, 8),
    (64, 64, 64, 128, 4, True, None),
    (64, 64, 32, 128, 3, False, None),
    (64, 128, 64, 128, 5, True, 8),
    (192, 128, 64, 384, 3, True, None),
    (192, 128, 64, 384, 2, False, 10),
]

# Flash attention forward (examples/flash_attention/example_mha_fwd.py):
# batch, heads, seq_len, dim, causal, block_M, block_N, threads, num_stages.
ATTENTION = [
    (1, 16, 4096, 64, False, 64, 64, 128, 2),
    (1, 16, 4096, 64, True, 128, 64, 256, 2),
    (1, 16, 4096, 128, False, 128, 128, 256, 2),
    (1, 16, 4096, 128, True, 128, 64, 256, 2),
    (1, 16, 4096, 128, False, 128, 128, 256, 3),
    (1, 16, 4096, 64, False, 192, 128, 384, 2),
]


def gemm_name(bm, bn, bk, threads, stages, c_shared, panel):
    return (f"gemm_{bm}x{bn}x{bk}_t{threads}_s{stages}"
            f"{'_cshared' if c_shared else ''}{f'_swz{panel}' if panel else ''}")


def attention_name(batch, heads, seq, dim, causal, bm, bn, threads, stages):
    return f"mha_s{seq}d{dim}{'c' if causal else ''}_{bm}x{bn}_t{threads}_s{stages}"


def grid():
    """(name, prim_func, out_idx) of every kernel of the grid."""
    for bm, bn, bk, threads, stages, c_shared, panel in GEMMS:
        prim = kernels.gemm(4096, 4096, 4096, block_M=bm, block_N=bn, block_K=bk,
                            threads=threads, num_stages=stages, c_shared=c_shared,
                            swizzle_panel=panel)
        yield gemm_name(bm, bn, bk, threads, stages, c_shared, panel), prim, [2]
    fa = _load_flash_attention()
    for batch, heads, seq, dim, causal, bm, bn, threads, stages in ATTENTION:
        prim = fa.flashattn.factory(batch, heads, seq, dim, causal, block_M=bm, block_N=bn,
                                    num_stages=stages, threads=threads)
        yield (attention_name(batch, heads, seq, dim, causal, bm, bn, threads, stages),
               prim, [3])
