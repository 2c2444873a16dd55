"""Runs one GEMM bundle of benchmark/gemm.py and torch.matmul once each, for
profilers (run under ncu / nsys on the GPU machine):

    ncu --section SpeedOfLight python3 benchmark/gpu/profile_gemm.py BUNDLE_DIR M N K
"""

import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from tilemlir.runtime import load_bundle  # noqa: E402


def main():
    bundle, m, n, k = sys.argv[1], *map(int, sys.argv[2:5])
    kernel = load_bundle(bundle)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    for _ in range(3):
        kernel(a, b, c)
        torch.matmul(a, b)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
