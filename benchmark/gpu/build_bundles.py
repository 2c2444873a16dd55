"""Compiles the GPU benchmark set into bundles (run on the build machine).

    .venv/bin/python benchmark/gpu/build_bundles.py [--out .bundles]

Each bundle (cubin + bundle.json) goes to OUT/<name>/; OUT/index.json lists
them with what run_bundles.py needs to check and time them. Prints the
compile time of each kernel (Python definition to cubin)."""

import argparse
import json
import pathlib
import shutil
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import tilemlir  # noqa: E402
import kernels  # noqa: E402

sys.path.insert(0, str(HERE.parent))
from gemm import hopper_config  # noqa: E402

GEMMS = [
    # name, M, N, K, trans_A, trans_B, dtype
    ("gemm_f16_nn_4096", 4096, 4096, 4096, False, False, "float16"),
    ("gemm_f16_nn_odd", 4095, 4097, 1000, False, False, "float16"),
    ("gemm_f16_nt_2048", 2048, 2048, 2048, False, True, "float16"),
    ("gemm_f16_tn_2048", 2048, 2048, 2048, True, False, "float16"),
    ("gemm_f16_nn_small_odd", 200, 328, 136, False, False, "float16"),
    ("gemm_bf16_nn_4096", 4096, 4096, 4096, False, False, "bfloat16"),
    ("gemm_bf16_nn_odd", 4095, 4097, 1000, False, False, "bfloat16"),
    # fp8 runs as wgmma only (sm_90a), with B given as N x K.
    ("gemm_fp8_nt_4096", 4096, 4096, 4096, False, True, "float8_e4m3"),
    ("gemm_fp8_nt_odd", 777, 1000, 392, False, True, "float8_e4m3"),
    # int8 -> int32 runs as mma.sync m16n8k32 on both paths (ldmatrix for
    # K-contiguous operands: A not transposed, B given as N x K).
    ("gemm_i8_nt_4096", 4096, 4096, 4096, False, True, "int8"),
    ("gemm_i8_nn_odd", 1000, 520, 200, False, False, "int8"),
    # f32 runs as tf32 mma.sync m16n8k8 on both paths.
    ("gemm_tf32_nt_2048", 2048, 2048, 2048, False, True, "float32"),
    ("gemm_tf32_nn_odd", 1000, 520, 264, False, False, "float32"),
]


ATTENTION = [
    # name, batch, heads, seq_len, dim, causal
    ("mha_d64_s2048", 4, 16, 2048, 64, False),
    ("mha_d64_s2048_causal", 4, 16, 2048, 64, True),
    ("mha_d64_s200_odd", 1, 2, 200, 64, False),
    ("mha_d64_s200_odd_causal", 1, 2, 200, 64, True),
    ("mha_d128_s2048", 4, 16, 2048, 128, False),
    ("mha_d128_s2048_causal", 4, 16, 2048, 128, True),
]

GEMM_SP = [("gemm_sp_f16_4096", 4096, 4096, 4096), ("gemm_sp_f16_odd", 1000, 520, 512)]

SOFTMAX = [("softmax_4096x1024", 4096, 1024), ("softmax_1000x512_odd", 1000, 512)]
ROW_SUM = [("rowsum_8192x2048", 8192, 2048), ("rowsum_1000x520_odd", 1000, 520)]
# Row maxima of a gemm whose accumulator rows span 4 warps.
GEMM_ROWMAX = [("gemm_rowmax_2048", 2048, 2048, 1024), ("gemm_rowmax_odd", 1000, 512, 200)]

# Tile configurations tried at 4096^3 (sm_90a): block_M, block_N, block_K,
# threads.
SWEEP = [(128, 128, 32, 128), (128, 128, 32, 256), (128, 128, 64, 256), (128, 256, 32, 256),
         (256, 128, 32, 256), (64, 128, 32, 128), (128, 64, 64, 128)]


def compile_bundle(out, index, full, prim, out_idx, arch, **entry):
    """Compiles `prim` for `arch` into the bundle out/`full` and lists it in
    `index` with `entry` (the kind and what its runner needs). build_attention.py
    uses it too."""
    start = time.perf_counter()
    kernel = tilemlir.compile(prim, out_idx=out_idx, target=f"cuda -arch={arch}")
    seconds = time.perf_counter() - start
    shutil.copytree(kernel.bundle_dir, out / full)
    index.append({"name": full, **entry, "arch": arch, "compile_s": round(seconds, 3)})
    print(f"{full:32s} compiled in {seconds:.2f} s")


def benchmark_set(archs, sweep=False):
    """Every kernel of the set: (name, prim_func, out_idx, arch, index entry
    without name and arch). benchmark/compile_time.py compiles them too."""
    def bundle(full, prim, out_idx, arch, **entry):
        return full, prim, out_idx, arch, entry

    if sweep:
        for bm, bn, bk, threads in SWEEP:
            prim = kernels.gemm(4096, 4096, 4096, block_M=bm, block_N=bn, block_K=bk,
                                threads=threads)
            yield bundle(f"sweep_{bm}x{bn}x{bk}_t{threads}", prim, [2], "sm_90a", kind="gemm",
                         M=4096, N=4096, K=4096, trans_A=False, trans_B=False, dtype="float16")
    for arch in archs:
        for name, m, n, k, ta, tb, dtype in GEMMS:
            if dtype == "float8_e4m3" and arch != "sm_90a":
                continue
            out_dtype = {"float8_e4m3": "bfloat16", "int8": "int32"}.get(dtype, dtype)
            if dtype == "int8":
                prim = kernels.gemm(m, n, k, block_K=64, trans_A=ta, trans_B=tb, dtype=dtype,
                                    accum_dtype="int32", out_dtype=out_dtype)
            elif dtype == "float32":
                prim = kernels.gemm(m, n, k, trans_A=ta, trans_B=tb, dtype=dtype)
            elif arch == "sm_90a":
                # The Hopper path: TMA, producer warpgroup, wgmma.
                bm, bn, bk, threads, stages = hopper_config(m, n, k, dtype)
                prim = kernels.gemm(m, n, k, block_M=bm, block_N=bn, block_K=bk,
                                    threads=threads, num_stages=stages, trans_A=ta,
                                    trans_B=tb, dtype=dtype, out_dtype=out_dtype,
                                    swizzle_panel=8)
            else:
                prim = kernels.gemm(m, n, k, trans_A=ta, trans_B=tb, dtype=dtype)
            yield bundle(f"{name}_{arch}", prim, [2], arch, kind="gemm", M=m, N=n, K=k,
                         trans_A=ta, trans_B=tb, dtype=dtype, out_dtype=out_dtype)
    fa = _load_flash_attention()
    for arch in archs:
        for name, batch, heads, seq, dim, causal in ATTENTION:
            # The example's defaults (128x64 tiles, 8 warps, K and V copies one
            # iteration ahead); 128-key tiles on sm_90a, where attention runs
            # as wgmma (build_attention.py compares the variants).
            block_N = 128 if arch == "sm_90a" else 64
            prim = fa.flashattn.factory(batch, heads, seq, dim, causal, block_N=block_N)
            yield bundle(f"{name}_{arch}", prim, [3], arch, kind="attention", batch=batch,
                         heads=heads, seq=seq, dim=dim, causal=causal)
        for name, m, n, k in GEMM_SP:
            yield bundle(f"{name}_{arch}", kernels.gemm_sp(m, n, k), [3], arch, kind="gemm_sp",
                         M=m, N=n, K=k)
        for name, m, n in SOFTMAX:
            yield bundle(f"{name}_{arch}", kernels.softmax(m, n), [1], arch, kind="softmax",
                         M=m, N=n)
        for name, m, n in ROW_SUM:
            yield bundle(f"{name}_{arch}", kernels.row_sum(m, n), [1], arch, kind="row_sum",
                         M=m, N=n)
        for name, m, n, k in GEMM_ROWMAX:
            yield bundle(f"{name}_{arch}", kernels.gemm_rowmax(m, n, k), [2], arch,
                         kind="gemm_rowmax", M=m, N=n, K=k)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=".bundles")
    parser.add_argument("--archs", nargs="+", default=["sm_80", "sm_90a"])
    parser.add_argument("--sweep", action="store_true",
                        help="also compile the tile-configuration sweep at 4096^3")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    index = []
    for full, prim, out_idx, arch, entry in benchmark_set(args.archs, args.sweep):
        compile_bundle(out, index, full, prim, out_idx, arch, **entry)
    (out / "index.json").write_text(json.dumps(index, indent=1))


def _load_flash_attention():
    import importlib.util
    path = HERE.parent.parent / "examples" / "flash_attention" / "example_mha_fwd.py"
    spec = importlib.util.spec_from_file_location("example_mha_fwd", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()
