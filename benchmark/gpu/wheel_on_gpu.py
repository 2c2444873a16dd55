"""The wheel on a GPU machine: what `pip install tilemlir-*.whl` gives a user
there. Run by wheel_on_gpu.sh with the Python of a virtual environment that
has the wheel installed (and torch, triton, numpy from the system), from a
copy of benchmark/ and examples/ outside the checkout.

Prints: where tilemlir and its compiler library are, the ptxas it found,
`import tilemlir` time, the first compile of the seed GEMM to cubin (empty
cache), then the examples compiled there and checked against torch, then
(in wheel_on_gpu.sh) the benchmark set compiled there by build_bundles.py
and run by run_bundles.py.

    python wheel_on_gpu.py [--tilelang-only]

With TILELANG_SITE=<TileLang's wheels unpacked> it also times TileLang's
import and its first compile of the same seed GEMM (--tilelang-only: only
those; tilemlir need not be installed):

    mkdir -p /tmp/tl && tar -xJf tl.tar.xz -C /tmp/tl &&
      TILELANG_SITE=/tmp/tl python3 benchmark/gpu/wheel_on_gpu.py --tilelang-only"""

import importlib.util
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = HERE.parents[1] / "examples"
sys.path.insert(0, str(HERE.parent))

import startup  # noqa: E402


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tilelang_first_compile_seconds(site):
    """The same seed GEMM through TileLang (its README program: our example
    with the import changed back), unpacked wheels at `site`, empty cache."""
    source = (EXAMPLES / "gemm" / "example_gemm.py").read_text().replace("tilemlir", "tilelang")
    code = f"""
import sys, time, tempfile, os
os.environ["TILELANG_CACHE_DIR"] = tempfile.mkdtemp()
t0 = time.perf_counter()
import tilelang
t1 = time.perf_counter()
if hasattr(tilelang, "disable_cache"):
    tilelang.disable_cache()
# Written to a file: TileLang reads its kernels' source with inspect.
folder = tempfile.mkdtemp()
with open(os.path.join(folder, "example_gemm_tl.py"), "w") as f:
    f.write({source!r})
sys.path.insert(0, folder)
import example_gemm_tl as example
t2 = time.perf_counter()
example.matmul(1024, 1024, 1024, 128, 128, 32)
t3 = time.perf_counter()
print(t1 - t0, t3 - t2)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=site))
    if r.returncode:
        print(f"TileLang's seed GEMM failed: {r.stderr.strip()[-500:]}")
        return None
    return tuple(float(x) for x in r.stdout.split()[-2:])


def check_examples():
    import torch
    import tilemlir
    failures = 0
    gemm = load(EXAMPLES / "gemm" / "example_gemm.py")
    for m, n, k in ((200, 328, 136), (1024, 1024, 1024), (4096, 4096, 4096)):
        start = time.perf_counter()
        kernel = tilemlir.compile(gemm.matmul.factory(m, n, k, 128, 128, 32), out_idx=[2],
                                  target="cuda")
        seconds = time.perf_counter() - start
        profiler = kernel.get_profiler()
        try:
            profiler.assert_allclose(lambda a, b: torch.relu(a.float() @ b.float()),
                                     atol=1e-2, rtol=1e-2)
            status = "ok"
        except AssertionError as e:
            status, failures = f"FAIL {str(e)[:200]}", failures + 1
        ms = profiler.do_bench()
        print(f"example_gemm {m}x{n}x{k}: compiled in {seconds:.2f} s, {status}, {ms:.4f} ms, "
              f"{2 * m * n * k / ms / 1e9:.1f} TFLOP/s")
    mha = load(EXAMPLES / "flash_attention" / "example_mha_fwd.py")
    for batch, heads, seq, dim, causal in ((1, 2, 200, 64, False), (1, 2, 200, 64, True),
                                           (4, 16, 2048, 128, False), (4, 16, 2048, 128, True)):
        start = time.perf_counter()
        kernel = tilemlir.compile(mha.flashattn.factory(batch, heads, seq, dim, causal),
                                  out_idx=[3], target="cuda")
        seconds = time.perf_counter() - start
        q, k_, v = (torch.randn(batch, seq, heads, dim, dtype=torch.float16, device="cuda")
                    for _ in range(3))
        out = kernel(q, k_, v)
        ref = torch.nn.functional.scaled_dot_product_attention(
            q.transpose(1, 2), k_.transpose(1, 2), v.transpose(1, 2),
            is_causal=causal).transpose(1, 2)
        err = (out.float() - ref.float()).abs().max().item()
        ok = err < 2e-2
        failures += not ok
        print(f"example_mha_fwd b{batch} h{heads} s{seq} d{dim} causal={causal}: compiled in "
              f"{seconds:.2f} s, {'ok' if ok else 'FAIL'} (max abs err {err:.2e})")
    return failures


def tilelang_figures():
    site = os.environ.get("TILELANG_SITE")
    if not site:
        return
    code = "import time; t = time.perf_counter(); import tilelang; print(time.perf_counter() - t)"
    times = []
    for _ in range(5):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=site))
        if r.returncode:
            print(f"import tilelang failed: {r.stderr.strip()[-300:]}")
            return
        times.append(float(r.stdout.split()[-1]))
    print(f"import tilelang: {statistics.median(times):.3f} s (median of 5 fresh interpreters)")
    tl = tilelang_first_compile_seconds(site)
    if tl:
        print(f"TileLang seed GEMM 1024^3 first compile (empty cache, fresh interpreter): "
              f"{tl[1]:.3f} s (import {tl[0]:.3f} s)")


def main():
    if "--tilelang-only" in sys.argv:
        tilelang_figures()
        return
    import tilemlir
    import tilemlir._compiler as compiler
    from tilemlir import _cuda_toolkit
    print(f"tilemlir {tilemlir.__version__} from {pathlib.Path(tilemlir.__file__).parent}")
    print(f"compiler library {compiler.library_path()}")
    print(subprocess.run(["ldd", str(compiler.library_path())], capture_output=True,
                         text=True).stdout, end="")
    print(f"CUDA tools: {_cuda_toolkit.find()}")
    wall, cpu = startup.measure(startup.IMPORT, 5)
    print(f"import tilemlir: {wall:.3f} s wall, {cpu:.3f} s CPU (median of 5)")
    wall, cpu = startup.measure(startup.COMPILE.format(examples=str(EXAMPLES / "gemm"),
                                                       target="cuda"), 3)
    print(f"seed GEMM 1024^3 first compile to cubin (empty cache, fresh interpreter): "
          f"{wall:.3f} s wall, {cpu:.3f} s CPU with ptxas (median of 3)")
    tilelang_figures()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TILEMLIR_CACHE_DIR"] = cache
        failures = check_examples()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
