"""The GPU runs of features whose CI tests check IR, PTX and CPU runs
only: barriers the compiler inserts between thread-level accesses of
shared memory (tile-insert-barriers), the user's own mbarriers
(T.alloc_barrier with T.tma_copy, arrive and parity waits),
float4_e2m1fn stored two a byte (tile-emulate-fp4) and the fp8
conversions (tile-lower-fp8-casts: cvt on sm_90a) and copies out of a
region of a fragment. Each kernel is the
one its pytest file builds (python/test/test_barrier_insertion.py,
test_barriers.py, test_fp4.py, test_fp8_casts.py, test_copy_forms.py), run on the GPU against the same numpy
reference, at shapes that are not multiples of the tiles where the kernel
allows. Compiled on the build machine into a disk cache, run from it:

    # build machine (no GPU: "cuda" compiles for sm_90a)
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/features_on_gpu.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/features_on_gpu.py

Prints one line a case (ok / MISMATCH with the largest error); exits 1 on a
mismatch.
"""

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "python" / "test"))

import tilemlir  # noqa: E402
import test_barrier_insertion as sync  # noqa: E402
import test_barriers as mbar  # noqa: E402
import test_fp4 as fp4  # noqa: E402
import test_fp8_casts as fp8  # noqa: E402
import test_copy_forms as copies  # noqa: E402


def cases(rng):
    """(name, kernel factory result, out_idx, inputs, reference)."""
    out = []
    for n, block in ((256, 64), (200, 64)):
        a = rng.standard_normal(n).astype(np.float32)
        padded = np.zeros(-(-n // block) * block, np.float32)
        padded[:n] = a
        want = padded.reshape(-1, block)[:, ::-1].reshape(-1)[:n]
        out.append((f"inserted barriers: a block's elements reversed through shared, n={n}",
                    sync.reversed_rows(n, block), [1], [a], want))
    for n, k in ((256, 256), (200, 300)):
        block_n, block_k = 64, 32
        w = rng.standard_normal((n, k)).astype(np.float32)
        x = rng.standard_normal(k).astype(np.float32)
        wp = np.zeros((-(-n // block_n) * block_n, k), np.float32)
        wp[:n] = w
        shifted = np.roll(wp.reshape(-1, block_n, k), -1, axis=1).reshape(-1, k)[:n]
        out.append((f"inserted barriers: thread-level gemv reading a neighbour's row {n}x{k}",
                    sync.thread_gemv(n, k, block_n, block_k), [2], [w, x], shifted @ x))
    rows, width = 4, 256
    a = rng.standard_normal((rows, width)).astype(np.float32)
    out.append(("mbarrier: T.tma_copy row, arrive, parity wait", mbar.rows_through_shared(rows, width),
                [1], [a], a[:, 0] + a[:, -1]))
    for M, N in ((64, 64), (45, 98)):
        x = fp4.specials_and_random((M, N), rng)
        out.append((f"fp4: f32 -> float4_e2m1fn, tiles over the edges {M}x{N}",
                    fp4.quantize_kernel(M, N, 16, 32, "float32"), [1], [x],
                    fp4.pack(fp4.encode(x))))
        b = rng.integers(0, 256, size=(M, N // 2), dtype=np.uint8)
        out.append((f"fp4: copy through shared keeps every nibble {M}x{N}",
                    fp4.copy_kernel(M, N, 16, 64), [1], [b], b))
    for rows in (4, 13):
        a = rng.standard_normal((256, 64)).astype(np.float16)
        b = rng.standard_normal((64, 64)).astype(np.float16)
        out.append((f"copy of the first {rows} rows of a gemm accumulator (a fragment region)",
                    copies.rows_of_a_product(256, 64, 64, rows), [2], [a, b],
                    copies.rows_of_a_product_reference(a, b, rows)))
    for dtype in fp8.FORMATS:
        x = fp8.probe_values(dtype)
        out.append((f"fp8: f32 -> {dtype} (cvt.rn.satfinite), n={len(x)}",
                    fp8.cast_kernel(len(x), "float32", dtype), [1], [x],
                    fp8_codes_check(x, fp8.expected_codes(x, dtype))))
        codes = np.arange(256, dtype=np.uint8).view(fp8.FORMATS[dtype][0])
        out.append((f"fp8: every {dtype} code -> f32",
                    fp8.cast_kernel(256, dtype, "float32"), [1], [codes],
                    exact_check(codes.astype(np.float32))))
    return out


def fp8_codes_check(x, want):
    """The output's bytes against `want`; a NaN input may give any NaN code
    (its low seven bits set)."""
    def check(got):
        got = got.view(np.uint8)
        nan = np.isnan(x)
        wrong = int(np.count_nonzero(got[~nan] != want[~nan]))
        return wrong == 0 and bool(np.all(got[nan] & 0x7F == 0x7F)), f"{wrong} codes differ"
    return check


def exact_check(want):
    def check(got):
        ok = got.shape == want.shape and np.array_equal(got, want, equal_nan=True)
        return ok, "exact" if ok else f"{int(np.count_nonzero(got != want))} values differ"
    return check


def to_torch(x):
    """A CUDA tensor of `x`; fp8 arrays (ml_dtypes) through their bytes."""
    import torch
    if x.dtype.name.startswith("float8"):
        return torch.from_numpy(x.view(np.uint8)).view(getattr(torch, x.dtype.name)).cuda()
    return torch.from_numpy(np.ascontiguousarray(x)).cuda()


def main():
    fill = "--fill" in sys.argv
    rng = np.random.default_rng(11)
    bad = 0
    for name, prim, out_idx, inputs, want in cases(rng):
        kernel = tilemlir.compile(prim, out_idx=out_idx, target="cuda")
        if fill:
            print(f"compiled: {name}")
            continue
        import torch
        got = kernel(*[to_torch(x) for x in inputs])
        if got.element_size() == 1 and got.dtype != torch.uint8:
            got = got.view(torch.uint8)  # fp8, float4_e2m1fn_x2: the bytes
        elif got.dtype == torch.float16:
            got = got.float()
        got = got.cpu().numpy()
        if callable(want):
            ok, detail = want(got)
        elif want.dtype == np.uint8:
            ok = np.array_equal(got, want)
            err = int(np.count_nonzero(got != want))
            detail = f"{err} bytes differ"
        else:
            err = float(np.max(np.abs(got - want))) if got.shape == want.shape else float("inf")
            ok = err <= 1e-3 * max(1.0, float(np.max(np.abs(want))))
            detail = f"max error {err:.2e}"
        bad += not ok
        print(f"{'ok' if ok else 'MISMATCH'}: {name} ({detail})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
