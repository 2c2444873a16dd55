"""Host time of one launch through the pure-Python runtime (run on a GPU):
the smallest GEMM bundle of benchmark/gemm.py, called in a loop without
synchronizing, against a torch op of the same size; then where the time
goes (cProfile).

    python3 benchmark/gpu/launch_overhead.py .bundles/gemm/float16_17x72x24_nn
"""

import cProfile
import pathlib
import pstats
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from tilemlir.runtime import load_bundle  # noqa: E402


def per_call_us(fn, n=2000):
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / n * 1e6


def main():
    kernel = load_bundle(sys.argv[1])
    a = torch.randn(17, 24, device="cuda", dtype=torch.float16)
    b = torch.randn(24, 72, device="cuda", dtype=torch.float16)
    c = torch.empty(17, 72, device="cuda", dtype=torch.float16)
    print(f"ours: {per_call_us(lambda: kernel(a, b, c)):.1f} us per launch (host)")
    print(f"torch.matmul: {per_call_us(lambda: torch.matmul(a, b)):.1f} us per call (host)")
    cProfile.runctx("for _ in range(2000): kernel(a, b, c)", globals(), locals(), "/tmp/prof")
    pstats.Stats("/tmp/prof").sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
