"""Reducers (T.alloc_reducer / T.finalize_reducer), the paired atomics
(T.atomic_addx2 / x4) and views of global tensors on the GPU, against torch.
The kernels are compiled on the build machine into a disk cache, then run
on the GPU machine from it:

    # build machine (no GPU: "cuda" compiles for sm_90a)
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/reducers_on_gpu.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/reducers_on_gpu.py

Prints one line a kernel (max error, ok / MISMATCH); exits 1 on a mismatch.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tilemlir  # noqa: E402
import tilemlir.language as T  # noqa: E402


def gemv(M, N, block_M, block_N, threads, dtype):
    @T.prim_func
    def k(a: T.Tensor((M, N), dtype), x: T.Tensor((N,), dtype), o: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bm:
            acc = T.alloc_reducer(block_M, "float32", replication="all")
            T.clear(acc)
            for bn in T.Pipelined(T.ceildiv(N, block_N), num_stages=2):
                a_s = T.alloc_shared((block_M, block_N), dtype)
                T.copy(a[bm * block_M, bn * block_N], a_s)
                a_f = T.alloc_fragment((block_M, block_N), dtype)
                T.copy(a_s, a_f)
                x_f = T.alloc_fragment(block_N, dtype)
                T.copy(x[bn * block_N], x_f)
                for i, j in T.Parallel(block_M, block_N):
                    acc[i] += T.cast(a_f[i, j], "float32") * T.cast(x_f[j], "float32")
            T.finalize_reducer(acc)
            T.copy(acc, o[bm * block_M])
    return k


def row_max(M, N, block_M, seed):
    @T.prim_func
    def k(A: T.Tensor((M, N), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            r = T.alloc_reducer((block_M,), "float32", op="max", replication="all")
            T.fill(r, seed)
            a_f = T.alloc_fragment((block_M, N), "float32")
            T.copy(A[bx * block_M, 0], a_f)
            for i, j in T.Parallel(block_M, N):
                r[i] = T.max(r[i], a_f[i, j])
            T.finalize_reducer(r)
            T.copy(r, B[bx * block_M])
    return k


def column_sums(M, N):
    """Column sums seeded by S[0], through reducer_init / reducer_update
    into a destination fragment."""
    @T.prim_func
    def k(A: T.Tensor((M, N), "int32"), S: T.Tensor((1,), "int32"), B: T.Tensor((N,), "int32")):
        with T.Kernel(1, threads=256):
            cols = T.alloc_reducer((N,), "int32", op="sum")
            T.reducer_init(cols, S[0])
            tile = T.alloc_fragment((M, N), "int32")
            T.copy(A, tile)
            for r, c in T.Parallel(M, N):
                T.reducer_update(cols[c], tile[r, c])
            sums = T.alloc_fragment((N,), "int32")
            T.finalize_reducer(cols, sums)
            T.copy(sums, B)
    return k


def atomic_lanes(M, N, lanes, dtype):
    op = T.atomic_addx2 if lanes == 2 else T.atomic_addx4

    @T.prim_func
    def k(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(4, threads=128):
            for i, j in T.Parallel(M, N // lanes):
                op(B[i, j * lanes], A[i, j * lanes])
    return k


def reshaped_copy(N, M):
    @T.prim_func
    def k(A: T.Tensor((N,), "float16"), B: T.Tensor((N // M, M), "float16")):
        with T.Kernel(1, threads=128):
            T.copy(T.view(A, [N // M, M]), B)
    return k


def cases():
    """(name, prim_func, out_idx, make inputs, reference) with torch imported lazily."""
    return [
        ("gemv f32 200x300 64x64 128 threads", gemv(200, 300, 64, 64, 128, "float32"), [2],
         lambda t: [t.randn(200, 300), t.randn(300)], lambda a, x: a @ x),
        ("gemv f16 1000x1000 128x128 256 threads", gemv(1000, 1000, 128, 128, 256, "float16"), [2],
         lambda t: [t.randn(1000, 1000).half(), t.randn(1000).half()],
         lambda a, x: a.float() @ x.float()),
        ("row max seeded 0.5", row_max(96, 80, 32, 0.5), [1], lambda t: [t.randn(96, 80)],
         lambda a: a.amax(1).clamp(min=0.5)),
        ("reducer_init seed, int32 column sums into a fragment", column_sums(64, 48), [2],
         lambda t: [t.randint(-100, 100, (64, 48), dtype=t.int32), t.tensor([7], dtype=t.int32)],
         lambda a, s: a.sum(0, dtype=a.dtype) + s),
        ("atomic_addx2 f16", atomic_lanes(16, 64, 2, "float16"), [],
         lambda t: [t.randn(16, 64).half(), t.zeros(16, 64).half()],
         lambda a, b: (4 * a.float()).half()),
        ("atomic_addx4 f32", atomic_lanes(16, 64, 4, "float32"), [],
         lambda t: [t.randn(16, 64), t.zeros(16, 64)], lambda a, b: 4 * a),
        ("view of a global tensor", reshaped_copy(2048, 64), [1], lambda t: [t.randn(2048).half()],
         lambda a: a.view(32, 64)),
    ]


def main():
    fill = "--fill" in sys.argv
    failed = False
    for name, func, out_idx, make_inputs, ref in cases():
        kernel = tilemlir.compile(func, out_idx=out_idx, target="cuda")
        if fill:
            print(f"{name}: bundle in {kernel.bundle_dir}")
            continue
        import torch
        torch.manual_seed(0)
        inputs = [x.cuda() for x in make_inputs(torch)]
        out = kernel(*inputs)
        if not out_idx:
            out = inputs[-1]
        want = ref(*inputs)
        err = (out.float() - want.float()).abs().max().item()
        tol = 2e-2 if out.dtype == torch.float16 else 1e-3
        ok = torch.allclose(out.float(), want.float(), rtol=tol, atol=tol)
        failed |= not ok
        print(f"{name}: max error {err:.3g} {'ok' if ok else 'MISMATCH'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
