"""Host time of one call (run on a GPU): JIT kernels through tilemlir.compile
(an elementwise add of 1024x1024 fp32 and the seed GEMM at 1024^3, each
allocating its output) and, given a bundle directory, the smallest GEMM
bundle of benchmark/gemm.py through the runtime, called in a loop without
synchronizing, against torch ops of the same size; then where the time goes
(cProfile of the JIT add). The kernels come from a disk cache filled on the
build machine (no compiler needed here):

    # build machine
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/launch_overhead.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/launch_overhead.py \
        [.bundles/gemm/float16_17x72x24_nn]

benchmark/host_call_overhead.py measures the Python part alone, without a GPU.
"""

import cProfile
import importlib.util
import pathlib
import pstats
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tilemlir  # noqa: E402
import tilemlir.language as T  # noqa: E402
from tilemlir.runtime import load_bundle  # noqa: E402


@tilemlir.jit
def add(M, N, block_M=32, block_N=32, threads=128, dtype="float32"):

    @T.prim_func
    def add_kernel(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
                   C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            for i, j in T.Parallel(block_M, block_N):
                C[by * block_M + i, bx * block_N + j] = (A[by * block_M + i, bx * block_N + j] +
                                                         B[by * block_M + i, bx * block_N + j])

    return add_kernel


def seed_gemm():
    spec = importlib.util.spec_from_file_location("example_gemm",
                                                  ROOT / "examples" / "gemm" / "example_gemm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.matmul.factory(1024, 1024, 1024, 128, 128, 32)


def kernels():
    return {"add 1024x1024 fp32": tilemlir.compile(add.factory(1024, 1024), out_idx=[2],
                                                   target="cuda"),
            "seed gemm 1024^3 fp16": tilemlir.compile(seed_gemm(), out_idx=[2], target="cuda")}


def per_call_us(fn, n=5000):
    import torch
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
        torch.cuda.synchronize()
        best = min(best, elapsed / n * 1e6)
    return best


def main():
    if "--fill" in sys.argv:
        for name, kernel in kernels().items():
            print(f"{name}: bundle in {kernel.bundle_dir}")
        return
    import torch
    ks = kernels()
    x = torch.randn(1024, 1024, device="cuda")
    y = torch.randn(1024, 1024, device="cuda")
    a = torch.randn(1024, 1024, device="cuda", dtype=torch.float16)
    b = torch.randn(1024, 1024, device="cuda", dtype=torch.float16)
    add_kernel, gemm = ks["add 1024x1024 fp32"], ks["seed gemm 1024^3 fp16"]
    torch.testing.assert_close(add_kernel(x, y), x + y)
    print(f"on {torch.cuda.get_device_name()}, torch {torch.__version__}; host time per call "
          "(a loop of calls without synchronizing):")
    print(f"  add 1024x1024 fp32: ours {per_call_us(lambda: add_kernel(x, y)):.1f} us, "
          f"torch x + y {per_call_us(lambda: x + y):.1f} us")
    print(f"  seed gemm 1024^3 fp16: ours {per_call_us(lambda: gemm(a, b)):.1f} us, "
          f"torch.matmul {per_call_us(lambda: torch.matmul(a, b)):.1f} us")
    out = torch.empty(1024, 1024, device="cuda")
    print(f"  add through its runtime, output given: "
          f"{per_call_us(lambda: add_kernel.runtime(x, y, out)):.1f} us")
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        bundle = load_bundle(sys.argv[1])
        ga = torch.randn(17, 24, device="cuda", dtype=torch.float16)
        gb = torch.randn(24, 72, device="cuda", dtype=torch.float16)
        gc = torch.empty(17, 72, device="cuda", dtype=torch.float16)
        print(f"  bundle {sys.argv[1]}: ours {per_call_us(lambda: bundle(ga, gb, gc)):.1f} us, "
              f"torch.matmul {per_call_us(lambda: torch.matmul(ga, gb)):.1f} us")
    cProfile.runctx("for _ in range(5000): add_kernel(x, y)", globals(), locals(), "/tmp/prof")
    pstats.Stats("/tmp/prof").sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
