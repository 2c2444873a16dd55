"""TileLang's current front end on a GPU machine: a @tilemlir.jit function
that is itself the kernel, called with torch tensors (the constants bound
from their shapes) and through .compile(M=..., ...), against torch.

    # build machine (no GPU: "cuda" is sm_90a, the H200's chip)
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/current_frontend.py --fill
    # GPU machine (carry .jitcache; needs torch, not the compiler)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/current_frontend.py

--fill compiles every kernel the run needs into the cache; the run prints
one line per case and "current front end: ok".
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tilemlir  # noqa: E402
import tilemlir.language as T  # noqa: E402


@tilemlir.jit(target="cuda")
def matmul(A, B, block_M, block_N, block_K, dtype=T.float16, accum_dtype=T.float32):
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C = T.empty((M, N), dtype)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_s = T.alloc_shared((block_M, block_K), dtype)
        B_s = T.alloc_shared((block_K, block_N), dtype)
        acc = T.alloc_fragment((block_M, block_N), accum_dtype)
        T.clear(acc)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[by * block_M, k * block_K], A_s)
            T.copy(B[k * block_K, bx * block_N], B_s)
            T.gemm(A_s, B_s, acc)
        T.copy(acc, C[by * block_M, bx * block_N])
    return C


# (M, N, K): multiples of the 128 x 128 x 32 tile, and ragged ones whose
# rows stay 16-byte aligned (TMA).
SHAPES = [(1024, 1024, 1024), (1000, 520, 200), (136, 264, 72)]
TILE = dict(block_M=128, block_N=128, block_K=32)


def fill():
    for m, n, k in SHAPES:
        matmul.compile(M=m, N=n, K=k, **TILE)
    print(f"filled {len(SHAPES)} kernels")


def run():
    import torch
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        c = matmul(a, b, **TILE)  # binds M, N, K from the shapes
        torch.testing.assert_close(c, a @ b, rtol=1e-2, atol=1e-1)
        kernel = matmul.compile(M=m, N=n, K=k, **TILE)
        torch.testing.assert_close(kernel(a, b), c, rtol=0, atol=0)
        print(f"matmul {m}x{n}x{k}: ok")
    assert len(matmul.kernels) == len(SHAPES), matmul.kernels
    print("current front end: ok")


if __name__ == "__main__":
    fill() if "--fill" in sys.argv[1:] else run()
