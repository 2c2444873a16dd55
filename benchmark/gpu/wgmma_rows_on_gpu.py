"""TileLang's one-warpgroup programs for 128-row tiles (issue 17) on the GPU
against torch: examples/flash_attention/example_mha_fwd_bshd.py at block_M =
block_N = 128, 128 threads, 1 stage (FullRow gemms: two m64 wgmmas a
warpgroup, P from registers), examples/gemm/example_gemm.py at 128x128x32
and examples/gemm_fp8/example_tilelang_gemm_fp8.py (e4m3) at 128x128x64,
on shapes that are and are not multiples of the tiles; each timed against
torch. The examples are loaded with the import change
(benchmark/corpus/rewrite.py) from files written next to the cache, so that
inspect reads their source on both machines. The kernels are compiled on the
build machine into a disk cache, then run on the GPU machine from it:

    # build machine (no GPU: kernels compile for sm_90a)
    TILEMLIR_CACHE_DIR=.jitcache /work/main/.venv-corpus/bin/python \\
        benchmark/gpu/wgmma_rows_on_gpu.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 \\
        benchmark/gpu/wgmma_rows_on_gpu.py

The examples are read from $TILELANG_EXAMPLES (default
/work/tilelang-a35008a4/examples) when filling; the GPU run reads the
rewritten copies in the cache. Prints one line a case (max error, ok /
MISMATCH / NOT COMPILED, ms ours vs torch); exits 1 on a mismatch or a case
that did not compile.
"""

import importlib.util
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "benchmark"))

import tilemlir  # noqa: E402
import tilemlir.tvm.target  # noqa: E402,F401

EXAMPLES = pathlib.Path(os.environ.get("TILELANG_EXAMPLES", "/work/tilelang-a35008a4/examples"))
CACHE = pathlib.Path(os.environ.get("TILEMLIR_CACHE_DIR", ROOT / ".jitcache"))
COPIES = CACHE / "wgmma_rows_examples"

MHA = "flash_attention/example_mha_fwd_bshd.py"
GEMM = "gemm/example_gemm.py"
FP8 = "gemm_fp8/example_tilelang_gemm_fp8.py"


def load(rel, fill):
    """The example `rel` with the import change, from its copy in the cache
    (written there when filling)."""
    copy = COPIES / rel.replace("/", "__")
    if fill:
        from corpus.rewrite import rewrite_imports
        text, _ = rewrite_imports((EXAMPLES / rel).read_text())
        COPIES.mkdir(parents=True, exist_ok=True)
        copy.write_text(text)
    spec = importlib.util.spec_from_file_location(copy.stem, copy)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mha_cases():
    for b, h, s, d in ((2, 4, 333, 64), (1, 8, 1024, 128)):
        for causal in (False, True):
            for stages in (1, 2):
                yield (f"mha_bshd b{b} h{h} s{s} d{d} causal={causal} stages={stages}",
                       (b, h, s, d, causal, stages))


def gemm_cases():
    for m, n, k in ((1024, 1024, 1024), (1000, 1000, 1024)):
        yield f"gemm f16 128x128x32 {m}x{n}x{k}", (m, n, k)


def fp8_cases():
    for m, n, k in ((1024, 1024, 1024), (1000, 1000, 1024)):
        yield f"gemm fp8 e4m3 128x128x64 {m}x{n}x{k}", (m, n, k)


def compile_mha(mod, args):
    b, h, s, d, causal, stages = args
    return mod.flashattn(b, h, s, d, causal, block_M=128, block_N=128, num_stages=stages,
                         threads=128)


def compile_gemm(mod, args):
    m, n, k = args
    return mod.matmul.compile(M=m, N=n, K=k, block_M=128, block_N=128, block_K=32)


def compile_fp8(mod, args):
    m, n, k = args
    return mod.matmul.compile(M=m, N=n, K=k, block_M=128, block_N=128, block_K=64,
                              dtype="float8_e4m3")


def run_mha(torch, mod, kernel, args):
    b, h, s, d, causal, _ = args
    q, k, v = (torch.randn(b, s, h, d, dtype=torch.float16, device="cuda") for _ in range(3))
    got = kernel(q, k, v)
    want = mod.ref_program(q.float(), k.float(), v.float(), causal)
    return got, want, lambda: kernel(q, k, v), lambda: mod.ref_program(q, k, v, causal), 2e-2


def run_gemm(torch, mod, kernel, args):
    m, n, k = args
    a = torch.randn(m, k, dtype=torch.float16, device="cuda")
    b = torch.randn(k, n, dtype=torch.float16, device="cuda")
    got = kernel(a, b)
    want = a.float() @ b.float()
    # (relative to the magnitude of a K = 1024 sum of unit products)
    return got, want, lambda: kernel(a, b), lambda: a @ b, 0.5


def run_fp8(torch, mod, kernel, args):
    m, n, k = args
    a = torch.randn(m, k, dtype=torch.float16, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, dtype=torch.float16, device="cuda").to(torch.float8_e4m3fn)
    got = kernel(a, b)
    want = a.float() @ b.float().T
    # C is e4m3 too: its rounding (3 mantissa bits) dominates the error.
    ref = lambda: (a.half() @ b.half().T).to(torch.float8_e4m3fn)  # noqa: E731
    return got, want, lambda: kernel(a, b), ref, None


def bench(torch, fn, reps=50):
    for _ in range(5):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps


def check(torch, got, want, tol):
    got, want = got.double(), want.double()
    if tol is None:
        # fp8 output: cosine-style difference, as the example's calc_diff.
        diff = 1 - 2 * (got * want).sum() / (got * got + want * want).sum()
        return float(diff), bool(diff < 1e-3)
    err = float((got - want).abs().max())
    return err, bool(torch.allclose(got, want, rtol=tol, atol=tol))


def main():
    fill = "--fill" in sys.argv
    groups = [(MHA, mha_cases, compile_mha, run_mha),
              (GEMM, gemm_cases, compile_gemm, run_gemm),
              (FP8, fp8_cases, compile_fp8, run_fp8)]
    torch = None
    if not fill:
        import torch
        torch.manual_seed(0)
    failed = False
    with tilemlir.tvm.target.Target("cuda -arch=sm_90a"):
        for rel, cases, build, run in groups:
            mod = load(rel, fill)
            for name, args in cases():
                try:
                    kernel = build(mod, args)
                except Exception as exc:  # a compile error is a result here
                    print(f"{name}: NOT COMPILED ({str(exc).splitlines()[0][:200]})")
                    failed = True
                    continue
                if fill:
                    ptx = kernel.get_kernel_source()
                    print(f"{name}: compiled ({'wgmma' if 'wgmma.mma_async' in ptx else 'mma.sync'})")
                    continue
                got, want, ours, theirs, tol = run(torch, mod, kernel, args)
                torch.cuda.synchronize()
                err, ok = check(torch, got, want, tol)
                failed |= not ok
                t_ours, t_torch = bench(torch, ours), bench(torch, theirs)
                print(f"{name}: err {err:.3g} {'ok' if ok else 'MISMATCH'}  "
                      f"ours {t_ours:.3f} ms torch {t_torch:.3f} ms ({t_torch / t_ours:.2f}x)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
