"""`make demo`: the seed GEMM through every pipeline TileMLIR has, then
compiled and run on the default target with its check and time.

1. The seed GEMM in tile IR (examples/gemm/gemm.mlir): verified for every
   target and lowered to LLVM by tile-to-cpu, with tile-opt.
2. The seed GEMM in TileLang's Python (examples/gemm/example_gemm.py):
   compiled for the default target (the CPU: the GPU backends are not built
   yet), checked against numpy at an odd shape, timed at 1024^3.
"""

import argparse
import importlib.util
import pathlib
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED_IR = ROOT / "examples" / "gemm" / "gemm.mlir"
SEED_PY = ROOT / "examples" / "gemm" / "example_gemm.py"
TARGETS = ["cpu", "sm_80", "sm_90a", "gfx942"]


def tile_opt(binary, args):
    start = time.perf_counter()
    proc = subprocess.run([binary, str(SEED_IR), *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"demo: tile-opt {' '.join(args)} failed")
    return proc.stdout, elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tile-opt", default=str(ROOT / "build" / "bin" / "tile-opt"))
    args = parser.parse_args()

    print(f"[1] seed GEMM in tile IR: {SEED_IR.relative_to(ROOT)}")
    for target in TARGETS:
        _, t = tile_opt(args.tile_opt, [f"--tile-verify-target=target={target}"])
        print(f"    tile-verify-target target={target:7s} legal      ({t * 1e3:4.0f} ms)")
    out, t = tile_opt(args.tile_opt, ["--tile-to-cpu"])
    print(f"    tile-to-cpu                       {out.count('llvm.func')} llvm.func ({t * 1e3:4.0f} ms)")

    print(f"[2] seed GEMM in Python: {SEED_PY.relative_to(ROOT)}")
    if shutil.which("nvidia-smi"):
        print("    a GPU is present, but this build has no GPU backend yet: running on the CPU")
    spec = importlib.util.spec_from_file_location("example_gemm", SEED_PY)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)

    start = time.perf_counter()
    kernel = example.matmul(200, 328, 136, 128, 128, 32)
    compile_s = time.perf_counter() - start
    rng = np.random.default_rng(0)
    a = rng.standard_normal((200, 136)).astype(np.float16)
    b = rng.standard_normal((136, 328)).astype(np.float16)
    c = np.empty((200, 328), dtype=np.float16)
    kernel(a, b, c)
    ref = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    err = float(np.abs(c.astype(np.float32) - ref).max())
    ok = np.allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    print(f"    target cpu, 200x328x136 (not multiples of the 128x128x32 tiles): "
          f"{'PASS' if ok else 'FAIL'} (max abs err {err:.3g}); compile {compile_s:.2f} s")
    if not ok:
        raise SystemExit("demo: the seed GEMM does not match numpy")

    n = 1024
    kernel = example.matmul(n, n, n, 128, 128, 32)
    latency = kernel.get_profiler().do_bench()
    print(f"    target cpu, {n}^3: {latency:.2f} ms, {2 * n ** 3 / (latency * 1e-3) / 1e9:.1f} GFLOP/s")
    print("demo: ok")


if __name__ == "__main__":
    main()
