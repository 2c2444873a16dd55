"""Loading and running compiled kernel bundles. Pure Python: imports nothing
from the compiler, so bundles run where the compiler is absent.

A bundle is a directory with `bundle.json` (target, entry, parameters with
dtypes and shapes, output indices) and the binary it names. The runtime of
each target is imported when a bundle for it is loaded: the CPU runtime
needs numpy, the CUDA one (runtime/cuda.py) only ctypes and libcuda.so.1,
the HIP one (runtime/hip.py) only ctypes and libamdhip64.so."""

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
        if "kernels" in meta:
            base = {f: v for f, v in meta.items() if f not in LAUNCH_FIELDS}
            return KernelSequence([CudaKernel(path, {**base, **k}) for k in meta["kernels"]])
        return CudaKernel(path, meta)
    if target == "hip" or target.startswith("hip "):
        from .hip import HipKernel
        return HipKernel(path, meta)
    raise ValueError(f"bundle {path} is for target {target!r}, which this runtime cannot run")


# A CUDA bundle's fields that describe one launch; a bundle of several
# kernels lists them under "kernels" (the first also at the top level).
LAUNCH_FIELDS = ("entry", "kernel_args", "grid", "block", "shared_bytes", "cluster", "binary",
                 "ptx", "kernels")


class KernelSequence:
    """The kernels of a function with several T.Kernel blocks (a split-KV
    decode and its combine), launched in order on the same stream, each
    with the function's arguments: each starts after the one before has
    finished, as launches on one stream do."""

    def __init__(self, kernels):
        self.kernels = kernels
        self.params = kernels[0].params

    def __call__(self, *args, stream=None):
        self.launch(args, stream=stream)

    def launch(self, args, stream=None):
        for kernel in self.kernels:
            kernel.launch(args, stream=stream)

    @property
    def launch_made(self):
        """launch_made (see CudaKernel.launch_made) of each kernel in turn,
        where every kernel has one: the JITKernel's outputs and workspaces,
        new each call, then keep every kernel on its launch cache."""
        if not all(hasattr(k, "launch_made") for k in self.kernels):
            return None
        return self._launch_made

    def _launch_made(self, args, made):
        for kernel in self.kernels:
            kernel.launch_made(args, made)


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


def check_strides(name, want, shape, got, dims):
    """Checks the strides `got` (in elements) of T.StridedTensor argument
    `name` against its bundle strides `want` (ints and dynamic names, bound
    in `dims`); the stride of a dimension of size 1 is not looked at."""
    if got is None or len(got) != len(want):
        raise ValueError(f"argument '{name}' must have strides {tuple(want)} (in elements), "
                         f"got {got}")
    for k, (w, g, size) in enumerate(zip(want, got, shape)):
        if size == 1:
            continue
        if isinstance(w, int):
            if w != g:
                raise ValueError(f"argument '{name}' must have strides {tuple(want)} (in "
                                 f"elements), got {tuple(got)} (dim {k})")
        elif dims.setdefault(w, g) != g:
            raise ValueError(f"dynamic stride '{w}' is {dims[w]} elsewhere but {g} in "
                             f"argument '{name}'")


def span_elements(shape, strides):
    """How many elements from a tensor's first one its memory spans (its
    strides in elements; None: row-major)."""
    if 0 in shape:
        return 0
    if strides is None:
        n = 1
        for size in shape:
            n *= size
        return n
    return 1 + sum((size - 1) * abs(st) for size, st in zip(shape, strides))


# A tensor's shape entry in a bundle: an int, the name of a dynamic
# dimension, or {"var": name, "mul": a, "add": b}, the size a * name + b (a
# shape written with arithmetic on a dynamic dimension, T.Tensor((n * 4 + 1,))).

def dim_text(entry):
    """A shape entry as the program wrote it."""
    if isinstance(entry, dict):
        text = entry["var"] if entry["mul"] == 1 else f"{entry['var']} * {entry['mul']}"
        if entry["add"]:
            text += f" {'+' if entry['add'] > 0 else '-'} {abs(entry['add'])}"
        return text
    return str(entry)


def shape_text(shape):
    """A bundle shape in messages: as a tuple, sizes with arithmetic written out."""
    if not any(isinstance(d, dict) for d in shape):
        return str(tuple(shape))
    return "(" + ", ".join(dim_text(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def dynamic_names(shape):
    """The dynamic dimensions a shape names."""
    return {d["var"] if isinstance(d, dict) else d for d in shape if not isinstance(d, int)}


def bind_dim_expr(entry, got, dims, name):
    """Binds the dynamic dimension of shape entry `entry` (a dict) from size
    `got` of argument `name`; a ValueError where no value gives that size
    or the value disagrees with `dims`."""
    var, mul, add = entry["var"], entry["mul"], entry["add"]
    q, r = divmod(got - add, mul)
    if q < 0 or r:
        raise ValueError(f"argument '{name}' has a dimension of size {got}, which is "
                         f"{dim_text(entry)} for no size of '{var}'")
    if dims.setdefault(var, q) != q:
        raise ValueError(f"dynamic dimension '{var}' is {dims[var]} elsewhere, but a size of {got} "
                         f"for {dim_text(entry)} in argument '{name}' makes it {q}")


# Dtypes stored two elements a byte, the first in the low nibble: a tensor
# of them is a byte tensor (uint8, int8 or torch's float4_e2m1fn_x2) whose
# innermost extent is half the tensor's.
PACKED_DTYPES = frozenset({"float4_e2m1fn"})
PACKED_STORAGE = frozenset({"uint8", "int8", "float4_e2m1fn_x2"})


def logical_shape(dtype, shape):
    """The element shape of a tensor of `dtype` stored in `shape`."""
    shape = tuple(shape)
    if dtype in PACKED_DTYPES and shape:
        return shape[:-1] + (shape[-1] * 2,)
    return shape


def storage_shape(dtype, shape):
    """The shape of the tensor that stores `shape` elements of `dtype`."""
    shape = tuple(shape)
    if dtype in PACKED_DTYPES and shape:
        return shape[:-1] + (shape[-1] // 2,)
    return shape


def check_shape(name, want, got, dims, dtype=None):
    """Checks the shape `got` of tensor argument `name` against its bundle
    shape `want` (ints, dynamic dimensions, size expressions), binding the
    dynamic dimensions in `dims`; a ValueError where they disagree. For a
    packed `dtype` `got` is the storage's shape, `want` the elements'."""
    if dtype in PACKED_DTYPES:
        try:
            check_shape(name, want, logical_shape(dtype, got), dims)
        except ValueError as e:
            raise ValueError(f"{e} ({dtype} elements, two a byte: a tensor of shape "
                             f"{shape_text(want)} is stored in bytes of shape "
                             f"(..., {dim_text(want[-1]) if want else ''} / 2))") from None
        return
    if len(got) != len(want):
        raise ValueError(f"argument '{name}' must have {len(want)} dimensions "
                         f"{shape_text(want)}, got shape {got}")
    for k, (w, g) in enumerate(zip(want, got)):
        if isinstance(w, int):
            if w != g:
                raise ValueError(f"argument '{name}' must have shape "
                                 f"{shape_text(want)}, got {got} (dim {k})")
        elif isinstance(w, dict):
            bind_dim_expr(w, g, dims, name)
        elif dims.setdefault(w, g) != g:
            raise ValueError(f"dynamic dimension '{w}' is {dims[w]} elsewhere but "
                             f"{g} in argument '{name}'")


def dim_value(entry, dims):
    """The size of shape entry `entry` with the dynamic dimensions `dims`, or
    None where one it needs is not there."""
    if isinstance(entry, int):
        return entry
    if isinstance(entry, dict):
        v = dims.get(entry["var"])
        return None if v is None else entry["mul"] * v + entry["add"]
    return dims.get(entry)


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
    if name == "HipKernel":
        from .hip import HipKernel
        return HipKernel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
