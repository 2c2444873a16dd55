"""CPU benchmark: the seed GEMM (f32) compiled by TileMLIR against numpy's
matmul (OpenBLAS) on the same machine, side by side in one run.

    .venv/bin/python benchmark/cpu/bench_gemm.py [--sizes 1024 2048]

Prints, per size, the median time of each, GFLOP/s and the ratio, and the
time from tile IR to a callable kernel (tile-to-cpu + LLVM -O3 + JIT).
"""

import argparse
import pathlib
import re
import subprocess
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNEL = ROOT / "benchmark" / "cpu" / "gemm_f32.mlir"


def numpy_median(n, repeat):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    a @ b
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def tile_median(tile_run, n, repeat):
    shape = f"f32:{n}x{n}"
    out = subprocess.run(
        [tile_run, str(KERNEL), "--entry=gemm_f32", f"--arg={shape}", f"--arg={shape}",
         f"--arg={shape}", f"--repeat={repeat}"],
        check=True, capture_output=True, text=True).stdout
    m = re.search(r"compile_s ([0-9.]+) median_s ([0-9.]+)", out)
    return float(m.group(1)), float(m.group(2))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--tile-run", default=str(ROOT / "build" / "bin" / "tile-run"))
    args = parser.parse_args()

    print(f"{'size':>6} {'tilemlir ms':>12} {'numpy ms':>10} {'tilemlir GF/s':>14} "
          f"{'numpy GF/s':>11} {'ratio':>6} {'compile s':>10}")
    for n in args.sizes:
        compile_s, ours = tile_median(args.tile_run, n, args.repeat)
        ref = numpy_median(n, args.repeat)
        flops = 2.0 * n ** 3
        print(f"{n:>6} {ours * 1e3:>12.2f} {ref * 1e3:>10.2f} {flops / ours / 1e9:>14.1f} "
              f"{flops / ref / 1e9:>11.1f} {ref / ours:>6.2f} {compile_s:>10.3f}")


if __name__ == "__main__":
    main()
