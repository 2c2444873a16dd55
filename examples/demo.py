"""`make demo`: the seed GEMM through every pipeline TileMLIR has, then
compiled and run on the default target with its check and time.

1. The seed GEMM in tile IR (examples/gemm/gemm.mlir): verified for every
   target, lowered to LLVM by tile-to-cpu and to PTX / cubin by tile-to-nvvm,
   with tile-opt; its Hopper-sized version (examples/gemm/gemm_sm90.mlir)
   to sm_90a PTX with TMA, warp specialization and wgmma.
2. The seed GEMM in TileLang's Python (examples/gemm/example_gemm.py):
   compiled for the default target (CUDA when an NVIDIA GPU and torch are
   present, else the CPU), checked at an odd shape, timed at 1024^3 (4096^3
   on a GPU).
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


HOPPER_IR = ROOT / "examples" / "gemm" / "gemm_sm90.mlir"


def tile_opt(binary, args, source=SEED_IR):
    start = time.perf_counter()
    proc = subprocess.run([binary, str(source), *args], capture_output=True, text=True)
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
    for chip, fmt, what in (("sm_80", "isa", "PTX"), ("sm_90a", "bin", "cubin (ptxas)")):
        out, t = tile_opt(args.tile_opt, [f"--tile-to-nvvm=chip={chip} format={fmt}"])
        mma = "mma.sync in the PTX" if fmt == "isa" and "mma.sync" in out else ""
        print(f"    tile-to-nvvm chip={chip:6s} -> {what} {mma} ({t * 1e3:4.0f} ms)")
    # The Hopper tiles (128x256x64, two warpgroups): TMA, a producer
    # warpgroup and wgmma.
    out, t = tile_opt(args.tile_opt, ["--tile-to-nvvm=chip=sm_90a format=isa"], HOPPER_IR)
    parts = [p for p in ("wgmma.mma_async", "cp.async.bulk.tensor", "setmaxnreg") if p in out]
    print(f"    {HOPPER_IR.relative_to(ROOT)} sm_90a -> PTX with {', '.join(parts)} "
          f"({t * 1e3:4.0f} ms)")

    print(f"[2] seed GEMM in Python: {SEED_PY.relative_to(ROOT)}")
    spec = importlib.util.spec_from_file_location("example_gemm", SEED_PY)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    import tilemlir
    from tilemlir.jit import resolve_target
    target = resolve_target("auto")
    if target != "cpu":
        try:
            import torch
            gpu = torch.cuda.is_available()
        except ImportError:
            gpu = False
        if not gpu:
            print("    a GPU is present but torch cannot use it: running on the CPU")
            target = "cpu"
    matmul = example.matmul.factory
    m, n, k = 200, 328, 136

    start = time.perf_counter()
    kernel = tilemlir.compile(matmul(m, n, k, 128, 128, 32),
                              target="cpu" if target == "cpu" else "cuda")
    compile_s = time.perf_counter() - start
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    ref = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    if target == "cpu":
        c = np.empty((m, n), dtype=np.float16)
        kernel(a, b, c)
    else:
        import torch
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        tc = torch.empty((m, n), dtype=torch.float16, device="cuda")
        kernel(ta, tb, tc)
        c = tc.cpu().numpy()
    err = float(np.abs(c.astype(np.float32) - ref).max())
    ok = np.allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    print(f"    target {target}, {m}x{n}x{k} (not multiples of the 128x128x32 tiles): "
          f"{'PASS' if ok else 'FAIL'} (max abs err {err:.3g}); compile {compile_s:.2f} s")
    if not ok:
        raise SystemExit("demo: the seed GEMM does not match the reference")

    size = 1024 if target == "cpu" else 4096
    kernel = tilemlir.compile(matmul(size, size, size, 128, 128, 32),
                              target="cpu" if target == "cpu" else "cuda")
    if target == "cpu":
        latency = kernel.get_profiler().do_bench()
    else:
        import torch
        import triton.testing
        x = torch.randn(size, size, dtype=torch.float16, device="cuda")
        y = torch.randn(size, size, dtype=torch.float16, device="cuda")
        z = torch.empty(size, size, dtype=torch.float16, device="cuda")
        latency = triton.testing.do_bench(lambda: kernel(x, y, z), return_mode="median")
    print(f"    target {target}, {size}^3: {latency:.2f} ms, "
          f"{2 * size ** 3 / (latency * 1e-3) / 1e12:.2f} TFLOP/s")
    print("demo: ok")


if __name__ == "__main__":
    main()
