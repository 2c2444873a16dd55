"""Loading and running compiled kernel bundles. Pure Python: imports nothing
from the compiler, so bundles run where the compiler is absent.

A bundle is a directory with `bundle.json` (target, entry, parameters with
dtypes and shapes, output indices) and the binary it names. The runtime of
each target is imported when a bundle for it is loaded: the CPU runtime
needs numpy, the CUDA one (runtime/cuda.py) only ctypes and libcuda.so.1."""

import json
import pathlib
import sys


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


def check_written(params, spans):
    """Refuses arguments the kernel would write wrongly: `spans[i]` is
    (start, end, why read-only or "") of tensor argument i's memory, or
    None. A tensor the kernel writes (a parameter marked "written": true,
    as the compiler marks them) must not be read-only, nor overlap another
    tensor argument."""
    def written(p):
        return p.get("written") is True

    for p, span in zip(params, spans):
        if span is not None and span[2] and written(p):
            raise ValueError(f"argument '{p['name']}' is read-only ({span[2]}), but the kernel "
                             "writes it")
    live = [(p, s) for p, s in zip(params, spans) if s is not None and s[1] > s[0]]
    for i, (p, s) in enumerate(live):
        for q, t in live[i + 1:]:
            if (written(p) or written(q)) and s[0] < t[1] and t[0] < s[1]:
                w, other = (p, q) if written(p) else (q, p)
                raise ValueError(f"arguments '{p['name']}' and '{q['name']}' overlap in memory, "
                                 f"and the kernel writes '{w['name']}': pass '{other['name']}' "
                                 "a separate array")


def torch_read_only(obj):
    """Why torch itself would not let an in-place op write tensor `obj` (a
    leaf that requires grad while grad mode is on, an inference tensor
    outside inference mode), or "" (also for objects that are not torch
    tensors)."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(obj, torch.Tensor):
        return ""
    if getattr(obj, "requires_grad", False) and obj.is_leaf and torch.is_grad_enabled():
        return "a leaf torch tensor that requires grad"
    if getattr(obj, "is_inference", lambda: False)() and not torch.is_inference_mode_enabled():
        return "an inference tensor outside inference mode"
    return ""


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
