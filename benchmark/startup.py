"""Start-up figures of the tilemlir at hand (the wheel's, or the development
build's): `import tilemlir`, and the first compile of the seed GEMM
(examples/gemm/example_gemm.py, 1024^3) to a cubin into an empty cache, each
in fresh interpreters. Wall and CPU seconds (the CPU time counts ptxas, a
child process): on a shared machine the CPU time is the figure to compare.
Then where one more first compile goes: its steps on the Python side, and
the compiler library's timing report (TILEMLIR_TIMING=1: context, parser,
each pass, the verifier; wall seconds) down to the steps of 2 % or more.

    python benchmark/startup.py [--runs 5] [--target "cuda -arch=sm_90a"]

Record runs in benchmark/RESULTS.md."""

import argparse
import os
import pathlib
import re
import resource
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


BREAKDOWN = _CPU + """
import os, sys, tempfile, time
os.environ["TILEMLIR_CACHE_DIR"] = tempfile.mkdtemp()
sys.path.insert(0, {examples!r})
import tilemlir, example_gemm
from tilemlir import _compiler
jit = sys.modules["tilemlir.jit"]
prim = example_gemm.matmul.factory(1024, 1024, 1024, 128, 128, 32)
steps = {{}}
def timed(name, fn):
    def run(*args, **kwargs):
        t, c = time.perf_counter(), cpu()
        try:
            return fn(*args, **kwargs)
        finally:
            w, p = steps.get(name, (0.0, 0.0))
            steps[name] = (w + time.perf_counter() - t, p + cpu() - c)
    return run
jit.translate_with_launch = timed("translate the prim_func (Python)", jit.translate_with_launch)
_compiler.lib = timed("load the compiler library", _compiler.lib)
_compiler.compile_cuda_with_ptx = timed("compile in the library, with ptxas",
                                        _compiler.compile_cuda_with_ptx)
_compiler.compile_cuda = timed("compile in the library", _compiler.compile_cuda)
def ptxas():
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return c.ru_utime + c.ru_stime
t, c, x = time.perf_counter(), cpu(), ptxas()
tilemlir.compile(prim, out_idx=[2], target={target!r})
print("STEP", time.perf_counter() - t, cpu() - c, "first compile")
for name, (w, p) in steps.items():
    print("STEP", w, p, name)
print("STEP", 0, ptxas() - x, "  of which ptxas (child processes)")
"""


def breakdown(target):
    """Prints where one first compile goes (see the module's docstring)."""
    code = BREAKDOWN.format(examples=str(EXAMPLES / "gemm"), target=target)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=dict(os.environ, TILEMLIR_TIMING="1"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"where one first compile goes (wall s, CPU s; the interpreter took "
          f"{after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime:.3f} s "
          "CPU in all):")
    for line in run.stdout.splitlines():
        if line.startswith("STEP "):
            _, wall, cpu, name = line.split(" ", 3)
            print(f"  {float(wall):7.3f} {float(cpu):7.3f}  {name}")
    print("the compiler library's timing report (wall s):")
    for line in run.stderr.splitlines():
        # "0.0968 (  7.8%)  TileLowerOps": the steps of 2 % or more, and Total.
        step = re.match(r"\s*[\d.]+ \(\s*([\d.]+)%\)\s+(.*)", line)
        if step and (float(step[1]) >= 2.0 or step[2] == "Total"):
            print("  " + line.strip())


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
    if sys.flags.dont_write_bytecode:
        print("(PYTHONDONTWRITEBYTECODE is set: modules without bytecode in __pycache__ are "
              "compiled from source at each import)")
    breakdown(args.target)


if __name__ == "__main__":
    main()
