"""Compile time of every kernel, Python definition to cubin: the sm_90a
tile-configuration grid (benchmark/gpu/tile_grid.py) and the GPU benchmark
set (benchmark/gpu/build_bundles.py, sm_80 and sm_90a). A benchmark check,
not a unit test: run it on the build machine (no GPU needed),

    .venv/bin/python benchmark/compile_time.py [--limit 2.0] [--only SUBSTRING]

Each kernel is compiled with tilemlir.compile into an empty cache (what a
user's first call does: the tile IR through the NVVM pipeline once, which
gives the cubin, by ptxas, and its PTX). Prints one line a kernel, with its
wall time and CPU time (this process and its ptxas: on a loaded machine it
says more than the wall time), and exits non-zero when any took longer than
--limit seconds (wall). Record runs in benchmark/RESULTS.md with the load
average."""

import argparse
import os
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "gpu"))

import tilemlir  # noqa: E402
import tile_grid  # noqa: E402
from build_bundles import benchmark_set  # noqa: E402


def kernels():
    """(name, prim_func, out_idx, arch) of every kernel timed."""
    for name, prim, out_idx in tile_grid.grid():
        yield f"grid/{name}", prim, out_idx, "sm_90a"
    for name, prim, out_idx, arch, _ in benchmark_set(["sm_80", "sm_90a"]):
        yield f"set/{name}", prim, out_idx, arch


def cpu_seconds():
    """CPU time of this process and of its finished children (ptxas)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=float, default=2.0,
                        help="seconds a kernel may take (default 2)")
    parser.add_argument("--only", help="only kernels whose name contains this")
    args = parser.parse_args()
    slow, times, cpu_times = [], [], []
    with tempfile.TemporaryDirectory(prefix="tilemlir-compile-time-") as cache:
        os.environ["TILEMLIR_CACHE_DIR"] = cache
        for name, prim, out_idx, arch in kernels():
            if args.only and args.only not in name:
                continue
            start, cpu_start = time.perf_counter(), cpu_seconds()
            tilemlir.compile(prim, out_idx=out_idx, target=f"cuda -arch={arch}")
            seconds = time.perf_counter() - start
            cpu = cpu_seconds() - cpu_start
            times.append(seconds)
            cpu_times.append(cpu)
            over = seconds > args.limit
            slow += [name] if over else []
            print(f"{name:56s} {arch:7s} {seconds:6.2f} s  cpu {cpu:5.2f} s"
                  f"{'  OVER' if over else ''}", flush=True)
    if times:
        times.sort()
        cpu_times.sort()
        print(f"{len(times)} kernels: median {times[len(times) // 2]:.2f} s, "
              f"max {times[-1]:.2f} s, {len(slow)} over {args.limit:g} s; cpu median "
              f"{cpu_times[len(cpu_times) // 2]:.2f} s, max {cpu_times[-1]:.2f} s")
    sys.exit(1 if slow else 0)


if __name__ == "__main__":
    main()
