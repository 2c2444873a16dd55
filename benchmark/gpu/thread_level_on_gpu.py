"""Thread-level code on the GPU: warp votes, shuffles, matches, block
reductions, warp reductions, activemask, barrier-separated per-thread code
with T.alloc_var, partial warps and T.alloc_global, compiled for "cuda" and
for the CPU; the GPU's results must equal the CPU's (which
python/test/test_thread_level.py checks against Python references), on the
same inputs.

    # build machine: compile into the cache (CUDA and CPU bundles)
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/thread_level_on_gpu.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/thread_level_on_gpu.py
"""

import os
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tilemlir  # noqa: E402
import tilemlir.language as T  # noqa: E402


def collectives(threads):
    @T.prim_func
    def main(X: T.Tensor((threads,), "int32"), B: T.Tensor((threads, 13), "int32")):
        with T.Kernel(1, threads=threads):
            tx = T.get_thread_binding()
            x = X[tx]
            B[tx, 0] = T.any_sync(x > 90)
            B[tx, 1] = T.all_sync(x >= 0)
            B[tx, 2] = T.cast(T.ballot_sync(x % 3 == 0), "int32")
            B[tx, 3] = T.shfl_sync(x, 5)
            B[tx, 4] = T.shfl_xor(x, 3, 16)
            B[tx, 5] = T.shfl_down(x, 4)
            B[tx, 6] = T.shfl_up(x, 2, 8)
            B[tx, 7] = T.syncthreads_count(x % 2 == 1)
            B[tx, 8] = T.syncthreads_and(x < 99) * 10 + T.syncthreads_or(x == 7)
            B[tx, 9] = T.match_any_sync(x % 4)
            B[tx, 10] = T.match_all_sync(tx // 32)
            B[tx, 11] = T.warp_reduce_sum(x) + T.warp_reduce_max(x) * 1000
            B[tx, 12] = T.cast(T.activemask(), "int32")

    return main


def barrier_var(n):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(2, threads=n) as bx:
            s = T.alloc_shared((n,), "float32")
            tx = T.get_thread_binding()
            acc = T.alloc_var(T.float32, init=0.0)
            s[tx] = A[tx] + bx
            T.sync_threads()
            for k in T.serial(3):
                acc += s[(tx + k) % n]
                T.sync_threads()
                s[tx] = acc
                T.sync_threads()
            if bx == 1:
                B[tx] = acc

    return main


def workspace(n, bn):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        C = T.alloc_global((n,), "float32")
        with T.Kernel(T.ceildiv(n, bn), threads=bn) as bx:
            tx = T.get_thread_binding()
            C[bx * bn + tx] = A[bx * bn + tx] * 2.0
            T.sync_threads()
            B[bx * bn + tx] = C[bx * bn + (bn - 1 - tx)]

    return main


def main():
    fill = "--fill" in sys.argv
    rng = np.random.default_rng(0)
    cases = {   # name: (prim_func, inputs, out_idx)
        "collectives_64": (collectives(64), [rng.integers(0, 100, 64).astype(np.int32)], [1]),
        "collectives_96": (collectives(96), [rng.integers(0, 100, 96).astype(np.int32)], [1]),
        "barrier_var_48": (barrier_var(48), [np.arange(48, dtype=np.float32)], [1]),
        "alloc_global": (workspace(256, 64), [rng.standard_normal(256).astype(np.float32)], [1]),
    }
    # The CPU's results are computed on the build machine (--fill) and kept
    # beside the cache: the GPU machine need not compile for its own CPU.
    expected_path = pathlib.Path(os.environ.get("TILEMLIR_CACHE_DIR", ".")) / "thread_level.npz"
    gpus = {name: tilemlir.compile(prim, out_idx=out, target="cuda -arch=sm_90a")
            for name, (prim, _, out) in cases.items()}
    if fill:
        expected = {}
        for name, (prim, inputs, out) in cases.items():
            expected[name] = tilemlir.compile(prim, out_idx=out, target="cpu")(*inputs)
            print(f"{name}: bundle in {gpus[name].bundle_dir}")
        np.savez(expected_path, **expected)
        print(f"CPU results in {expected_path}")
        return
    import torch
    expected = np.load(expected_path)
    failures = 0
    for name, gpu in gpus.items():
        inputs = cases[name][1]
        want = expected[name]
        got = gpu(*[torch.from_numpy(a).cuda() for a in inputs]).cpu().numpy()
        ok = np.array_equal(got, want)
        print(f"{name}: {'ok' if ok else 'WRONG'}")
        if not ok:
            rows = np.argwhere(got != want)[:5]
            print(f"  first differences at {rows.tolist()}: gpu {got[tuple(rows.T)]}, "
                  f"cpu {want[tuple(rows.T)]}")
        failures += not ok
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
