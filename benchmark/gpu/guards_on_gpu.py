"""The out-of-bounds guards and region atomics of python/test/test_guards.py
on the GPU: the same kernels for target "cuda", checked against torch.
Tensors a kernel could overrun are views into larger ones, so that an
unguarded access shows in the memory around them.

    # build machine: compile into the cache
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/guards_on_gpu.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/guards_on_gpu.py
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tilemlir  # noqa: E402
import tilemlir.language as T  # noqa: E402


def region_atomic(M, N, bm, bn, kind, value):
    op = getattr(T, f"atomic_{kind}")

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, bm), T.ceildiv(N, bn), threads=32) as (bx, by):
            op(A[bx * bm:(bx + 1) * bm, by * bn:(by + 1) * bn], value)

    return main


def tail(N):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
             C: T.Tensor((256,), "float32")):
        with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
            for lane in T.Parallel(64):
                idx = bx * 64 + lane
                A[idx] = 1.0
                C[idx] = B[idx] + 1.0

    return main


def shifted(M, N, bm, bn, safe):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bn), "float32")
            T.annotate_safe_value({A: safe})
            for i, j in T.Parallel(bm, bn):
                A_s[i, j] = A[by * bm + i - 10, bx * bn + j]
            for i, j in T.Parallel(bm, bn):
                B[by * bm + i, bx * bn + j] = A_s[i, j]

    return main


def scatter():
    @T.prim_func
    def main(I: T.Tensor((64,), "int32"), O: T.Tensor((3, 16), "float32")):
        with T.Kernel(1, threads=64) as bx:
            s = T.alloc_shared((3, 16), "float32")
            T.clear(s)
            for j in T.Parallel(64):
                s[1, I[j]] = 1.0
            T.copy(s, O)

    return main


def main():
    fill = "--fill" in sys.argv
    kernels = {
        "atomic_add_region": region_atomic(128, 128, 32, 32, "add", 1.0),
        "atomic_max_region": region_atomic(100, 70, 32, 32, "max", 0.5),
        "tail_200": tail(200),
        "safe_value": shifted(128, 128, 64, 64, 10.0),
        "shared_scatter": scatter(),
    }
    compiled = {name: tilemlir.compile(prim, target="cuda -arch=sm_90a")
                for name, prim in kernels.items()}
    if fill:
        for name, kernel in compiled.items():
            print(f"{name}: bundle in {kernel.bundle_dir}")
        return
    import torch
    dev = "cuda"
    failures = 0

    def check(name, ok):
        nonlocal failures
        print(f"{name}: {'ok' if ok else 'WRONG'}")
        failures += not ok

    a = torch.zeros(128, 128, device=dev)
    compiled["atomic_add_region"](a)
    check("atomic_add_region", bool((a == 1).all()))

    base = torch.zeros(104, 70, device=dev)
    x = torch.randn(100, 70, device=dev)
    base[:100] = x
    compiled["atomic_max_region"](base[:100])
    check("atomic_max_region", bool((base[:100] == torch.clamp(x, min=0.5)).all()
                                    and (base[100:] == 0).all()))

    a_base = torch.full((264,), -7.0, device=dev)
    b_base = torch.full((264,), 100.0, device=dev)
    b_base[:200] = torch.arange(200, device=dev, dtype=torch.float32)
    c = torch.full((256,), float("nan"), device=dev)
    compiled["tail_200"](a_base[:200], b_base[:200], c)
    expect = torch.cat([torch.arange(200, device=dev, dtype=torch.float32) + 1,
                        torch.ones(56, device=dev)])
    check("tail_200", bool((a_base[:200] == 1).all() and (a_base[200:] == -7).all()
                           and (c == expect).all()))

    src = torch.arange(128 * 128, device=dev, dtype=torch.float32).reshape(128, 128)
    out = torch.zeros_like(src)
    compiled["safe_value"](src, out)
    expect = torch.cat([torch.full((10, 128), 10.0, device=dev), src[:-10]])
    check("safe_value", bool((out == expect).all()))

    idx = torch.arange(-16, 48, device=dev, dtype=torch.int32)
    o = torch.full((3, 16), float("nan"), device=dev)
    compiled["shared_scatter"](idx, o)
    expect = torch.zeros(3, 16, device=dev)
    expect[1] = 1
    check("shared_scatter", bool((o == expect).all()))
    torch.cuda.synchronize()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
