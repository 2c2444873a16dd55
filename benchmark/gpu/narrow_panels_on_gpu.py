"""TileLang's GEMMs whose shared operand rows are 64 bytes (issue 17: wgmma
from 64- and 32-byte swizzled panels) on the GPU against torch:
examples/gemm/example_gemm.py at its default 128x128x32 on 128 threads (A
rows 64 bytes), examples/gemm_fp8/example_tilelang_gemm_fp8.py (e4m3,
128x128x64: both operands' rows 64 bytes) and
examples/gemm_splitk/example_tilelang_gemm_splitk.py (128x128x32, split 4),
at 4096^3 and at shapes that are not multiples of the tiles; each checked
against torch and timed beside it. The examples are loaded as
wgmma_rows_on_gpu.py loads them (the import change, copies in the cache),
compiled on the build machine into the disk cache and run from it:

    # build machine (no GPU: kernels compile for sm_90a)
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python \\
        benchmark/gpu/narrow_panels_on_gpu.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 \\
        benchmark/gpu/narrow_panels_on_gpu.py

Prints one line a case: the instruction its PTX uses (wgmma / mma.sync),
the check (max error, or 1 - similarity for fp8 outputs), ours and torch's
time and TFLOP/s; exits 1 on a mismatch or a case that did not compile.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import tilemlir.tvm.target  # noqa: E402
import wgmma_rows_on_gpu as rows  # noqa: E402

GEMM = "gemm/example_gemm.py"
FP8 = "gemm_fp8/example_tilelang_gemm_fp8.py"
SPLITK = "gemm_splitk/example_tilelang_gemm_splitk.py"

SHAPES = ((4096, 4096, 4096), (4095, 4097, 1000), (200, 328, 136))
# Split-K reads K // 4 a split in whole 32-wide tiles: K a multiple of 128.
SPLITK_SHAPES = ((4096, 4096, 4096), (4095, 4097, 1024), (200, 328, 256))


def compile_gemm(mod, shape):
    m, n, k = shape
    return mod.matmul.compile(M=m, N=n, K=k, block_M=128, block_N=128, block_K=32)


def compile_fp8(mod, shape):
    m, n, k = shape
    return mod.matmul.compile(M=m, N=n, K=k, block_M=128, block_N=128, block_K=64,
                              dtype="float8_e4m3")


def compile_splitk(mod, shape):
    m, n, k = shape
    return mod.matmul.compile(M=m, N=n, K=k, block_M=128, block_N=128, block_K=32,
                              split_k=4)


def run_gemm(torch, kernel, shape):
    m, n, k = shape
    a = torch.randn(m, k, dtype=torch.float16, device="cuda")
    b = torch.randn(k, n, dtype=torch.float16, device="cuda")
    got = kernel(a, b)
    # (tolerance relative to a sum of K unit products, C rounded to fp16)
    return got, a.float() @ b.float(), lambda: kernel(a, b), lambda: a @ b, 0.5


def run_fp8(torch, kernel, shape):
    m, n, k = shape
    a = torch.randn(m, k, dtype=torch.float16, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, dtype=torch.float16, device="cuda").to(torch.float8_e4m3fn)
    got = kernel(a, b)
    want = a.float() @ b.float().T
    one = torch.ones((), device="cuda")
    if m % 16 == 0 and n % 16 == 0 and k % 16 == 0:
        ref = lambda: torch._scaled_mm(a, b.T, scale_a=one, scale_b=one,  # noqa: E731
                                       out_dtype=torch.float8_e4m3fn)
    else:  # (_scaled_mm takes multiples of 16 only)
        ref = lambda: (a.half() @ b.half().T).to(torch.float8_e4m3fn)  # noqa: E731
    # C is e4m3 too: the example's own check (1 - similarity < 1e-3).
    return got, want, lambda: kernel(a, b), ref, None


def run_splitk(torch, kernel, shape):
    m, n, k = shape
    a = torch.randn(m, k, dtype=torch.float16, device="cuda")
    b = torch.randn(k, n, dtype=torch.float16, device="cuda")
    c = torch.zeros(m, n, dtype=torch.float32, device="cuda")
    kernel(a, b, c)
    # (timed without zeroing C: the sums grow, the time does not change)
    return c, a.float() @ b.float(), lambda: kernel(a, b, c), lambda: a @ b, 0.5


GROUPS = (
    (GEMM, "example_gemm f16 128x128x32 t128", SHAPES, compile_gemm, run_gemm),
    (FP8, "fp8 e4m3 128x128x64 t128", SHAPES, compile_fp8, run_fp8),
    (SPLITK, "split-K f16 128x128x32 t128 split 4", SPLITK_SHAPES, compile_splitk,
     run_splitk),
)


def main():
    fill = "--fill" in sys.argv
    torch = None
    if not fill:
        import torch
        torch.manual_seed(0)
    failed = False
    with tilemlir.tvm.target.Target("cuda -arch=sm_90a"):
        for rel, label, shapes, build, run in GROUPS:
            mod = rows.load(rel, fill)
            for shape in shapes:
                name = f"{label} {'x'.join(map(str, shape))}"
                try:
                    kernel = build(mod, shape)
                except Exception as exc:  # a compile error is a result here
                    print(f"{name}: NOT COMPILED ({str(exc).splitlines()[0][:200]})")
                    failed = True
                    continue
                inst = "wgmma" if "wgmma.mma_async" in kernel.get_kernel_source() else "mma.sync"
                if fill:
                    print(f"{name}: compiled ({inst})", flush=True)
                    continue
                got, want, ours, theirs, tol = run(torch, kernel, shape)
                torch.cuda.synchronize()
                err, ok = rows.check(torch, got, want, tol)
                failed |= not ok
                t_ours, t_torch = rows.bench(torch, ours), rows.bench(torch, theirs)
                flops = 2 * shape[0] * shape[1] * shape[2]
                print(f"{name} [{inst}]: err {err:.3g} {'ok' if ok else 'MISMATCH'}  "
                      f"ours {t_ours:.4f} ms ({flops / t_ours / 1e9:.0f} TFLOP/s)  "
                      f"torch {t_torch:.4f} ms ({flops / t_torch / 1e9:.0f} TFLOP/s)  "
                      f"{t_torch / t_ours:.2f}x", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
