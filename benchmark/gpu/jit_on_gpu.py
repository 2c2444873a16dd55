"""The Python front end on a GPU machine without the compiler: kernels come
from a disk cache filled on the build machine (same programs, same cache
key), then run through tilemlir.compile / JITKernel with torch tensors, and
are checked and timed with the kernel's profiler.

    # build machine
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/jit_on_gpu.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/jit_on_gpu.py
"""

import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tilemlir  # noqa: E402


def load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    fill = "--fill" in sys.argv
    example = load(ROOT / "examples" / "gemm" / "example_gemm.py")
    # The seed GEMM (with its ReLU) at an odd shape and at 4096^3.
    for m, n, k in ((200, 328, 136), (4096, 4096, 4096)):
        kernel = tilemlir.compile(example.matmul.factory(m, n, k, 128, 128, 32), out_idx=[2],
                                  target="cuda")
        if fill:
            print(f"seed gemm {m}x{n}x{k}: bundle in {kernel.bundle_dir}")
            continue
        import torch
        profiler = kernel.get_profiler()
        profiler.assert_allclose(lambda a, b: torch.relu(a.float() @ b.float()), atol=1e-2,
                                 rtol=1e-2)
        ms = profiler.do_bench()
        print(f"seed gemm {m}x{n}x{k} via tilemlir.compile on {torch.cuda.get_device_name()}: "
              f"check ok, {ms:.4f} ms, {2 * m * n * k / ms / 1e9:.1f} TFLOP/s")


if __name__ == "__main__":
    main()
