"""Start-up figures of the tilemlir at hand (the wheel's, or the development
build's): `import tilemlir`, and the first compile of the seed GEMM
(examples/gemm/example_gemm.py, 1024^3) to a cubin into an empty cache, each
in fresh interpreters. Wall and CPU seconds (the CPU time counts ptxas, a
child process): on a shared machine the CPU time is the figure to compare.

    python benchmark/startup.py [--runs 5] [--target "cuda -arch=sm_90a"]

Record runs in benchmark/RESULTS.md."""

import argparse
import pathlib
import statistics
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"

_CPU = """
import resource
def cpu():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
"""

IMPORT = _CPU + """
import time
t, c = time.perf_counter(), cpu()
import tilemlir
print(time.perf_counter() - t, cpu() - c)
"""

COMPILE = _CPU + """
import os, sys, tempfile, time
os.environ["TILEMLIR_CACHE_DIR"] = tempfile.mkdtemp()
sys.path.insert(0, {examples!r})
import tilemlir, example_gemm
prim = example_gemm.matmul.factory(1024, 1024, 1024, 128, 128, 32)
t, c = time.perf_counter(), cpu()
tilemlir.compile(prim, out_idx=[2], target={target!r})
print(time.perf_counter() - t, cpu() - c)
"""


def measure(code, runs):
    """Median (wall, CPU) seconds of `code` over `runs` fresh interpreters."""
    walls, cpus = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout.split()
        walls.append(float(out[-2]))
        cpus.append(float(out[-1]))
    return statistics.median(walls), statistics.median(cpus)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--target", default="cuda -arch=sm_90a")
    args = parser.parse_args()
    wall, cpu = measure(IMPORT, args.runs)
    print(f"import tilemlir: {wall:.3f} s wall, {cpu:.3f} s CPU (median of {args.runs})")
    code = COMPILE.format(examples=str(EXAMPLES / "gemm"), target=args.target)
    wall, cpu = measure(code, args.runs)
    print(f"first compile of the seed GEMM 1024^3 ({args.target}): {wall:.3f} s wall, "
          f"{cpu:.3f} s CPU with ptxas (median of {args.runs})")


if __name__ == "__main__":
    main()
