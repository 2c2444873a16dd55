"""Runs programs written for a CUDA GPU on the CPU: torch's "cuda" device
becomes the CPU, torch.cuda answers as an H200 would (capability 9.0, 132
SMs), and a CPU-compiled kernel takes and returns torch tensors."""

import time

import numpy as np


def _torch():
    import torch
    return torch


def _is_cuda(device):
    torch = _torch()
    if isinstance(device, str):
        return device.startswith("cuda")
    return isinstance(device, torch.device) and device.type == "cuda"


def _cpu_device(device):
    return "cpu" if _is_cuda(device) else device


class _FakeEvent:
    def __init__(self, enable_timing=False, **_):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3


class _Properties:
    name = "NVIDIA H200 (emulated on the CPU)"
    major, minor = 9, 0
    multi_processor_count = 132
    total_memory = 141 * 2**30
    shared_memory_per_block_optin = 232448


def install():
    """Makes torch's cuda device the CPU for the rest of the process."""
    torch = _torch()
    from torch.overrides import TorchFunctionMode

    class CudaOnCpu(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func is torch.Tensor.cuda:
                return args[0]
            if "device" in kwargs:
                kwargs["device"] = _cpu_device(kwargs["device"])
            if func is torch.Tensor.to:
                args = tuple(_cpu_device(a) for a in args)
            return func(*args, **kwargs)

    CudaOnCpu().__enter__()
    cuda = torch.cuda
    cuda.is_available = lambda: True
    cuda.device_count = lambda: 1
    cuda.current_device = lambda: 0
    cuda.set_device = lambda *a, **k: None
    cuda.synchronize = lambda *a, **k: None
    cuda.empty_cache = lambda: None
    cuda.get_device_capability = lambda *a, **k: (9, 0)
    cuda.get_device_name = lambda *a, **k: _Properties.name
    cuda.get_device_properties = lambda *a, **k: _Properties()
    cuda.Event = _FakeEvent
    cuda.manual_seed = cuda.manual_seed_all = lambda *a, **k: None
    cuda.max_memory_allocated = cuda.memory_allocated = lambda *a, **k: 0
    # Little free memory, so that stress tests size themselves for a CPU.
    cuda.mem_get_info = lambda *a, **k: (2 * 2**30, _Properties.total_memory)
    cuda.reset_peak_memory_stats = lambda *a, **k: None


# torch dtypes numpy lacks: viewed through an integer of their width.
_VIEWS = {"bfloat16": ("int16", "bfloat16"), "float8_e4m3fn": ("uint8", "float8_e4m3fn"),
          "float8_e5m2": ("uint8", "float8_e5m2")}


def to_numpy(t):
    """A numpy array sharing `t`'s memory (t a CPU torch tensor)."""
    torch = _torch()
    name = str(t.dtype).replace("torch.", "")
    if name in _VIEWS:
        import ml_dtypes
        as_int, ml = _VIEWS[name]
        return t.view(getattr(torch, as_int)).numpy().view(getattr(ml_dtypes, ml))
    return t.numpy()


def to_torch(a):
    torch = _torch()
    name = str(a.dtype)
    for tname, (as_int, ml) in _VIEWS.items():
        if name == ml:
            return torch.from_numpy(a.view(as_int)).view(getattr(torch, tname))
    return torch.from_numpy(a)


def call_with_torch(kernel, args):
    """Calls a CPU JITKernel with torch tensors (and scalars): contiguous
    tensors, and those of T.StridedTensor parameters, are passed in place,
    others through a copy that is written back; outputs come back as torch
    tensors."""
    torch = _torch()
    arrays, copies = [], []
    params = getattr(kernel, "input_params", [])
    strided = [i < len(params) and "strides" in params[i] for i in range(len(args))]
    for a, in_place in zip(args, strided):
        if isinstance(a, torch.Tensor):
            c = a if a.is_contiguous() or in_place else a.contiguous()
            if c is not a:
                copies.append((a, c))
            arrays.append(to_numpy(c.detach()))
        else:
            arrays.append(a)
    out = kernel(*arrays)
    for orig, c in copies:
        orig.copy_(c)
    if out is None:
        return None
    if isinstance(out, list):
        return [to_torch(o) for o in out]
    return to_torch(out)


def numpy_from(x):
    torch = _torch()
    if isinstance(x, torch.Tensor):
        return x.detach().float().numpy()
    return np.asarray(x)
