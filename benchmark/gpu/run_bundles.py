"""Runs the bundles of build_bundles.py on a GPU: checks each against torch
on random data, then times it side by side with torch (cuBLAS).

    python3 benchmark/gpu/run_bundles.py .bundles

Needs torch and triton (for do_bench) and the pure-Python runtime
(python/tilemlir/runtime); not the compiler."""

import json
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "python"))
sys.path.insert(0, str(HERE))

from tilemlir.runtime import load_bundle  # noqa: E402


def bench(fn):
    import triton.testing
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def flops_of(m, n, k):
    return 2 * m * n * k


def gemm_case(entry):
    """Random inputs of a GEMM bundle's index entry (dims M, N, K, dtype,
    out_dtype, trans_A, trans_B), its output buffer filled with NaN (a
    sentinel for int8), the reference product, and torch's own kernel for
    the same product (cuBLAS, with TF32 for f32 inputs; torch._scaled_mm for
    fp8 and torch._int_mm for int8, None where they take no such shape).
    benchmark/gemm.py uses it too."""
    fp8 = entry["dtype"] == "float8_e4m3"
    int8 = entry["dtype"] == "int8"
    dt = torch.float8_e4m3fn if fp8 else getattr(torch, entry["dtype"])
    out_dt = getattr(torch, entry.get("out_dtype", entry["dtype"]))
    m, n, k = entry["M"], entry["N"], entry["K"]
    a_shape = (k, m) if entry["trans_A"] else (m, k)
    b_shape = (n, k) if entry["trans_B"] else (k, n)
    if int8:
        a = torch.randint(-128, 128, a_shape, device="cuda", dtype=dt)
        b = torch.randint(-128, 128, b_shape, device="cuda", dtype=dt)
        c = torch.full((m, n), -12345, device="cuda", dtype=out_dt)
    else:
        a = torch.randn(a_shape, device="cuda").to(dt)
        b = torch.randn(b_shape, device="cuda").to(dt)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=out_dt)
    op_a = a.t() if entry["trans_A"] else a
    op_b = b.t() if entry["trans_B"] else b
    # The reference in f64 for int8 (exact) and f32 inputs, in f32 otherwise.
    wide = torch.float64 if int8 or entry["dtype"] == "float32" else torch.float32
    ref = op_a.to(wide) @ op_b.to(wide)
    if entry["dtype"] == "float32":
        # Against torch's tf32 GEMM (cuBLAS with TF32 tensor cores).
        def theirs():
            before = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = True
            try:
                return torch.matmul(op_a, op_b)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = before
    elif int8:
        # torch._int_mm: M > 16 and K, N multiples of 8.
        ok = m > 16 and k % 8 == 0 and n % 8 == 0
        theirs = (lambda: torch._int_mm(op_a, op_b)) if ok else None  # noqa: E731
    elif not fp8:
        theirs = lambda: torch.matmul(op_a, op_b)  # noqa: E731
    elif m % 16 or n % 16 or k % 16:
        theirs = None
    else:
        one = torch.tensor(1.0, device="cuda")
        theirs = lambda: torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,  # noqa: E731
                                          out_dtype=out_dt)
    return a, b, c, ref, theirs


def rel_error(out, ref, tol):
    """Relative error of `out` against `ref` in the 2-norm, and whether it is
    below `tol` with no NaN in `out`."""
    err = ((out.double() - ref.double()).norm() / ref.double().norm()).item()
    return err, err < tol and not torch.isnan(out.double()).any().item()


def run_gemm(bundle_dir, entry, timed=True):
    kernel = load_bundle(bundle_dir)
    a, b, c, ref, theirs_fn = gemm_case(entry)
    kernel(a, b, c)
    torch.cuda.synchronize()
    # int8 products are exact.
    err, ok = rel_error(c, ref, 1e-12 if entry["dtype"] == "int8" else 1e-2)
    if not timed:
        return ok, err, 0.0, 1.0
    flops = flops_of(entry["M"], entry["N"], entry["K"])
    ours = bench(lambda: kernel(a, b, c))
    try:
        theirs = bench(theirs_fn) if theirs_fn else float("nan")
    except RuntimeError:  # torch has no kernel for these layouts
        theirs = float("nan")
    return ok, err, flops / ours / 1e9, flops / theirs / 1e9


def run_attention(bundle_dir, entry, timed=True):
    import torch.nn.functional as F
    kernel = load_bundle(bundle_dir)
    b, h, s, d = entry["batch"], entry["heads"], entry["seq"], entry["dim"]
    dt = getattr(torch, entry.get("dtype", "float16"))
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dt) for _ in range(3))
    out = torch.full((b, s, h, d), float("nan"), device="cuda", dtype=dt)
    kernel(q, k, v, out)
    torch.cuda.synchronize()

    def ref():
        return F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                              v.transpose(1, 2),
                                              is_causal=entry["causal"]).transpose(1, 2)
    expect = F.scaled_dot_product_attention(q.float().transpose(1, 2), k.float().transpose(1, 2),
                                            v.float().transpose(1, 2),
                                            is_causal=entry["causal"]).transpose(1, 2)
    err, ok = rel_error(out, expect, 1e-2)
    if not timed:
        return ok, err, 0.0, 1.0
    flops = 4 * b * h * s * s * d * (0.5 if entry["causal"] else 1.0)
    ours = bench(lambda: kernel(q, k, v, out))
    theirs = bench(ref)
    return ok, err, flops / ours / 1e9, flops / theirs / 1e9


def run_softmax(bundle_dir, entry, timed=True):
    kernel = load_bundle(bundle_dir)
    x = torch.randn(entry["M"], entry["N"], device="cuda", dtype=torch.float16)
    y = torch.full_like(x, float("nan"))
    kernel(x, y)
    torch.cuda.synchronize()
    expect = torch.softmax(x.float(), dim=1)
    err, ok = rel_error(y, expect, 1e-2)
    if not timed:
        return ok, err, 0.0, 1.0
    # Reported as GB/s of the input read plus the output written.
    nbytes = 2 * x.numel() * x.element_size()
    ours = bench(lambda: kernel(x, y))
    theirs = bench(lambda: torch.softmax(x, dim=1))
    return ok, err, nbytes / ours / 1e6, nbytes / theirs / 1e6


def run_row_sum(bundle_dir, entry, timed=True):
    kernel = load_bundle(bundle_dir)
    x = torch.randn(entry["M"], entry["N"], device="cuda", dtype=torch.float16)
    y = torch.full((entry["M"],), float("nan"), device="cuda", dtype=torch.float32)
    kernel(x, y)
    torch.cuda.synchronize()
    expect = x.float().sum(dim=1)
    err, ok = rel_error(y, expect, 1e-4)
    if not timed:
        return ok, err, 0.0, 1.0
    # GB/s of the input read.
    nbytes = x.numel() * x.element_size()
    ours = bench(lambda: kernel(x, y))
    theirs = bench(lambda: torch.sum(x, dim=1, dtype=torch.float32))
    return ok, err, nbytes / ours / 1e6, nbytes / theirs / 1e6


def run_gemm_rowmax(bundle_dir, entry, timed=True):
    kernel = load_bundle(bundle_dir)
    m, n, k = entry["M"], entry["N"], entry["K"]
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    r = torch.full((n // 64, m), float("nan"), device="cuda", dtype=torch.float32)
    kernel(a, b, r)
    torch.cuda.synchronize()
    expect = (a.float() @ b.float()).view(m, n // 64, 64).amax(dim=-1).t()
    err, ok = rel_error(r, expect, 1e-3)
    if not timed:
        return ok, err, 0.0, 1.0
    flops = 2 * m * n * k
    ours = bench(lambda: kernel(a, b, r))
    theirs = bench(lambda: torch.matmul(a, b).view(m, n // 64, 64).amax(dim=-1))
    return ok, err, flops / ours / 1e9, flops / theirs / 1e9


def run_gemm_sp(bundle_dir, entry, timed=True):
    import numpy as np
    import kernels
    kernel = load_bundle(bundle_dir)
    m, n, k = entry["M"], entry["N"], entry["K"]
    values, meta, dense = kernels.make_sparse(m, k, np.random.default_rng(0))
    a = torch.from_numpy(values).cuda()
    e = torch.from_numpy(meta).cuda()
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    kernel(a, e, b, c)
    torch.cuda.synchronize()
    dense_t = torch.from_numpy(dense).cuda()
    ref = dense_t @ b.float()
    err, ok = rel_error(c, ref, 1e-2)
    if not timed:
        return ok, err, 0.0, 1.0
    dense_h = dense_t.half()
    flops = 2 * m * n * k  # dense-equivalent
    ours = bench(lambda: kernel(a, e, b, c))
    theirs = bench(lambda: torch.matmul(dense_h, b))
    return ok, err, flops / ours / 1e9, flops / theirs / 1e9


RUNNERS = {"gemm": None, "attention": run_attention, "softmax": run_softmax,
           "row_sum": run_row_sum, "gemm_rowmax": run_gemm_rowmax,
           "gemm_sp": run_gemm_sp}


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", nargs="?", default=".bundles")
    parser.add_argument("--only", help="run only the bundle of this name")
    parser.add_argument("--no-bench", action="store_true", help="check only (for sanitizers)")
    args = parser.parse_args()
    root = pathlib.Path(args.root)
    index = json.loads((root / "index.json").read_text())
    if args.only:
        index = [e for e in index if e["name"] == args.only]
    print(f"GPU: {torch.cuda.get_device_name()}")
    print("gemm / attention: TFLOP/s against torch (cuBLAS / SDPA); softmax, row sums: GB/s "
          "against torch.softmax / torch.sum")
    print(f"{'kernel':32s} {'check':6s} {'rel err':>9s} {'ours':>10s} "
          f"{'torch':>12s} {'ratio':>6s}")
    failures = 0
    for entry in index:
        try:
            # GEMM entries (benchmark/gemm.py writes them) name no kind.
            runner = RUNNERS.get(entry.get("kind")) or run_gemm
            ok, err, ours, theirs = runner(root / entry["name"], entry, not args.no_bench)
        except Exception as e:  # noqa: BLE001 - report and continue
            print(f"{entry['name']:32s} ERROR {type(e).__name__}: {e}")
            failures += 1
            continue
        failures += not ok
        print(f"{entry['name']:32s} {'ok' if ok else 'FAIL':6s} {err:9.2e} {ours:10.1f} "
              f"{theirs:12.1f} {ours / theirs:6.3f}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
