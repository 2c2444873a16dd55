"""Loading and running compiled kernel bundles. Pure Python: imports nothing
from the compiler, so bundles run where the compiler is absent.

A bundle is a directory with `bundle.json` (target, entry, parameters with
dtypes and shapes, output indices) and the binary it names. The runtime of
each target is imported when a bundle for it is loaded: the CPU runtime
needs numpy, the CUDA one (runtime/cuda.py) only ctypes and libcuda.so.1."""

import json
import pathlib


def load_bundle(path):
    path = pathlib.Path(path)
    meta = json.loads((path / "bundle.json").read_text())
    target = meta["target"]
    if target == "cpu":
        from .cpu import CpuKernel
        return CpuKernel(path, meta)
    if target == "cuda" or target.startswith("cuda "):
        from .cuda import CudaKernel
        return CudaKernel(path, meta)
    raise ValueError(f"bundle {path} is for target {target!r}, which this runtime cannot run")


def __getattr__(name):
    # `from tilemlir.runtime import CpuKernel` keeps working without importing
    # every target's runtime up front.
    if name == "CpuKernel":
        from .cpu import CpuKernel
        return CpuKernel
    if name == "CudaKernel":
        from .cuda import CudaKernel
        return CudaKernel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
