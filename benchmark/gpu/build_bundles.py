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

GEMMS = [
    # name, M, N, K, trans_A, trans_B, dtype
    ("gemm_f16_nn_4096", 4096, 4096, 4096, False, False, "float16"),
    ("gemm_f16_nn_odd", 4095, 4097, 1000, False, False, "float16"),
    ("gemm_f16_nt_2048", 2048, 2048, 2048, False, True, "float16"),
    ("gemm_f16_tn_2048", 2048, 2048, 2048, True, False, "float16"),
    ("gemm_f16_nn_small_odd", 200, 328, 136, False, False, "float16"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=".bundles")
    parser.add_argument("--archs", nargs="+", default=["sm_80", "sm_90a"])
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    index = []
    for arch in args.archs:
        for name, m, n, k, ta, tb, dtype in GEMMS:
            start = time.perf_counter()
            prim = kernels.gemm(m, n, k, trans_A=ta, trans_B=tb, dtype=dtype)
            kernel = tilemlir.compile(prim, out_idx=[2], target=f"cuda -arch={arch}")
            seconds = time.perf_counter() - start
            full = f"{name}_{arch}"
            shutil.copytree(kernel.bundle_dir, out / full)
            index.append({"name": full, "kind": "gemm", "M": m, "N": n, "K": k,
                          "trans_A": ta, "trans_B": tb, "dtype": dtype, "arch": arch,
                          "compile_s": round(seconds, 3)})
            print(f"{full:32s} compiled in {seconds:.2f} s")
    (out / "index.json").write_text(json.dumps(index, indent=1))


if __name__ == "__main__":
    main()
