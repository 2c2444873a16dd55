"""Runs CPU bundles: a shared library exporting `_mlir_<entry>(void **)`."""

import ctypes

import numpy as np

from ..language.dtypes import as_dtype
from . import check_written


def _span(a):
    """(start, end, why read-only) of a C-contiguous numpy array's memory."""
    if a is None:
        return None
    start = a.ctypes.data
    return start, start + a.nbytes, "" if a.flags.writeable else "its numpy array is not writeable"


class CpuKernel:
    """A loaded CPU kernel. Call it with numpy arrays (and Python scalars)
    in the order of the kernel's parameters."""

    def __init__(self, path, meta):
        self.path = path
        self.meta = meta
        self.params = meta["params"]
        self._lib = ctypes.CDLL(str(path / meta["library"]))
        self._fn = getattr(self._lib, "_mlir_" + meta["entry"])
        self._fn.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        self._fn.restype = None

    def check_args(self, args):
        """Checks ranks, sizes, dtypes and layout of the arguments (None
        entries are skipped); returns the dynamic dimensions by name."""
        if len(args) != len(self.params):
            raise TypeError(f"kernel '{self.meta['entry']}' takes {len(self.params)} arguments "
                            f"({', '.join(p['name'] for p in self.params)}), got {len(args)}")
        dims = {}
        for p, a in zip(self.params, args):
            name = p["name"]
            if a is None:
                continue
            if p["kind"] == "scalar":
                dt = as_dtype(p["dtype"])
                is_bool = isinstance(a, (bool, np.bool_))
                if (is_bool and dt.kind != "bool") or \
                        not isinstance(a, (int, float, np.number, np.bool_)):
                    raise TypeError(f"argument '{name}' must be a {p['dtype']} scalar, got "
                                    f"{type(a).__name__}")
                if dt.is_int and dt.kind != "bool":
                    if not isinstance(a, (int, np.integer)):
                        raise TypeError(f"argument '{name}' must be an integer ({p['dtype']}), "
                                        f"got {type(a).__name__} {a!r}")
                    lo, hi = ((0, (1 << dt.bits) - 1) if dt.kind == "uint" else
                              (-(1 << (dt.bits - 1)), (1 << (dt.bits - 1)) - 1))
                    if not lo <= int(a) <= hi:
                        raise ValueError(f"argument '{name}' = {a} does not fit in "
                                         f"{p['dtype']}")
                continue
            if not isinstance(a, np.ndarray):
                raise TypeError(f"argument '{name}' must be a numpy array on the cpu target, got "
                                f"{type(a).__name__}")
            want = as_dtype(p["dtype"])
            if a.dtype != want.numpy:
                raise TypeError(f"argument '{name}' must have dtype {want.name}, got {a.dtype}")
            if a.ndim != len(p["shape"]):
                raise ValueError(f"argument '{name}' must have {len(p['shape'])} dimensions "
                                 f"{tuple(p['shape'])}, got shape {a.shape}")
            for d, (want_dim, got) in enumerate(zip(p["shape"], a.shape)):
                if isinstance(want_dim, int):
                    if want_dim != got:
                        raise ValueError(f"argument '{name}' must have shape {tuple(p['shape'])}, "
                                         f"got {a.shape} (dim {d})")
                else:
                    if dims.setdefault(want_dim, got) != got:
                        raise ValueError(f"dynamic dimension '{want_dim}' is {dims[want_dim]} "
                                         f"elsewhere but {got} in argument '{name}'")
            if not a.flags.c_contiguous:
                raise ValueError(f"argument '{name}' must be C-contiguous "
                                 "(use np.ascontiguousarray)")
        check_written(self.params, [_span(a) if p["kind"] == "tensor" else None
                                    for p, a in zip(self.params, args)])
        return dims

    def __call__(self, *args):
        self.check_args(args)
        self.launch(args)

    def launch(self, args):
        """Runs the kernel on checked arguments."""
        keep = []
        ptrs = []

        def push(obj):
            keep.append(obj)
            ptrs.append(ctypes.cast(ctypes.pointer(obj), ctypes.c_void_p))

        for p, a in zip(self.params, args):
            if p["kind"] == "scalar":
                dt = as_dtype(p["dtype"])
                ctype = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i32": ctypes.c_int32,
                         "i64": ctypes.c_int64, "index": ctypes.c_int64}.get(dt.mlir)
                if ctype is None:
                    raise TypeError(f"scalar parameters of type {dt.name} are not supported")
                push(ctype(a))
                continue
            data = ctypes.c_void_p(a.ctypes.data)
            push(data)
            push(ctypes.c_void_p(a.ctypes.data))
            push(ctypes.c_int64(0))
            for s in a.shape:
                push(ctypes.c_int64(s))
            item = a.itemsize
            for s in a.strides:
                push(ctypes.c_int64(s // item))
        array = (ctypes.c_void_p * len(ptrs))(*[p.value for p in ptrs])
        self._fn(array)
