"""Library compile time of chosen kernels with the cubin and the PTX from one
pipeline run (compile_cuda_with_ptx, what the JIT does since fe61a18) and
from two (compile_cuda "bin", then "isa": what it did before), alternating,
with the same compiler library; and whether both give the same bytes.

    .venv/bin/python benchmark/compile_one_run.py NAME[,NAME...] [REPEATS]

NAME ends a kernel name of benchmark/compile_time.py (e.g.
gemm_f16_nn_4096_sm_80). Prints the best wall and CPU time (this process and
its ptxas) of each way, per kernel and in total."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compile_time  # noqa: E402
from tilemlir import _compiler  # noqa: E402
from tilemlir.language.parser import translate_with_launch  # noqa: E402


def one_run(ir, chip):
    cubin, ptx, _ = _compiler.compile_cuda_with_ptx(ir, chip)
    return cubin, ptx


def two_runs(ir, chip):
    cubin, _ = _compiler.compile_cuda(ir, chip, "bin")
    ptx, _ = _compiler.compile_cuda(ir, chip, "isa")
    return cubin, ptx


def main():
    names = sys.argv[1].split(",")
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    ways = {"two runs": two_runs, "one run": one_run}
    totals = {way: [0.0, 0.0] for way in ways}
    _compiler.cuda_toolkit()
    for name, prim, _, chip in compile_time.kernels():
        if not any(name.endswith(n) for n in names):
            continue
        ir = translate_with_launch(prim)[0]
        times = {way: [] for way in ways}
        outputs = set()
        for r in range(repeats):
            for way in (list(ways) if r % 2 == 0 else list(reversed(ways))):
                start, cpu_start = time.perf_counter(), compile_time.cpu_seconds()
                outputs.add(ways[way](ir, chip))
                times[way].append((time.perf_counter() - start,
                                   compile_time.cpu_seconds() - cpu_start))
        line = f"{name:44s} {chip:6s}"
        for way, t in times.items():
            wall, cpu = min(w for w, _ in t), min(c for _, c in t)
            totals[way][0] += wall
            totals[way][1] += cpu
            line += f"  {way}: {wall:5.2f} s, cpu {cpu:5.2f} s"
        print(line + ("  same bytes" if len(outputs) == 1 else "  DIFFERENT BYTES"), flush=True)
    print("total: " + "; ".join(f"{way} {w:.2f} s, cpu {c:.2f} s"
                                for way, (w, c) in totals.items()))


if __name__ == "__main__":
    main()
