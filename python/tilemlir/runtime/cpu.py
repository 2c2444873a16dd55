"""Runs CPU bundles: a shared library exporting `_mlir_<entry>(void **)`."""

import ctypes

import numpy as np

from ..language.dtypes import as_dtype
from . import (PACKED_DTYPES, PACKED_STORAGE, check_shape, check_strides, check_written,
               span_elements, torch_read_only)


class _HostTensor:
    """What the CPU runtime needs of a tensor argument: a numpy array, or a
    CPU tensor with torch's protocol (data_ptr(), stride(), element_size(),
    shape, dtype, device), used in place."""
    __slots__ = ("ptr", "shape", "strides", "dtype", "itemsize", "read_only", "obj")

    def __init__(self, ptr, shape, strides, dtype, itemsize, read_only, obj):
        self.ptr = ptr                # int address
        self.shape = shape            # tuple of ints
        self.strides = strides        # tuple of ints, in elements (None: not whole elements)
        self.dtype = dtype            # the element type's name, as the program spells it
        self.itemsize = itemsize
        self.read_only = read_only    # why it must not be written, or ""
        self.obj = obj

    @property
    def contiguous(self):
        want, acc = [], 1
        for size in reversed(self.shape):
            want.append(acc)
            acc *= max(size, 1)
        if 0 in self.shape:
            return True
        return self.strides is not None and all(
            st == w for size, st, w in zip(self.shape, self.strides, reversed(want)) if size != 1)

    def span(self):
        """(start, end, why read-only) of its memory."""
        n = span_elements(self.shape, None if self.contiguous else self.strides)
        return self.ptr, self.ptr + n * self.itemsize, self.read_only


def _is_torch_like(a):
    return all(hasattr(a, attr) for attr in ("data_ptr", "stride", "element_size", "shape",
                                             "dtype", "device"))


def _host_tensor(name, a):
    """The _HostTensor of argument `name`, or a TypeError that says what the
    cpu target takes."""
    if isinstance(a, np.ndarray):
        item = a.itemsize
        strides = (tuple(s // item for s in a.strides)
                   if all(s % item == 0 for s in a.strides) else None)
        why = "" if a.flags.writeable else "its numpy array is not writeable"
        return _HostTensor(a.ctypes.data, a.shape, strides, str(a.dtype), item, why, a)
    if _is_torch_like(a):
        device = getattr(a.device, "type", str(a.device))
        if device != "cpu":
            raise TypeError(f"argument '{name}' is a tensor on {a.device}; the cpu target needs "
                            "tensors in host memory (use .cpu())")
        dtype = str(a.dtype)
        dtype = dtype[len("torch."):] if dtype.startswith("torch.") else dtype
        return _HostTensor(int(a.data_ptr()), tuple(int(s) for s in a.shape),
                           tuple(int(s) for s in a.stride()), dtype, int(a.element_size()),
                           torch_read_only(a), a)
    raise TypeError(f"argument '{name}' must be a numpy array or a CPU torch tensor on the cpu "
                    f"target, got {type(a).__name__}")


def _same_dtype(want, got):
    """Whether a tensor whose dtype is named `got` (numpy or torch spelling)
    holds elements of DType `want` (packed 4-bit elements: byte tensors)."""
    if want.name in PACKED_DTYPES:
        return got in PACKED_STORAGE
    try:
        return as_dtype(got).name == want.name
    except TypeError:
        return False


class CpuKernel:
    """A loaded CPU kernel. Call it with numpy arrays or CPU torch tensors
    (used in place, without a copy) and Python scalars in the order of the
    kernel's parameters."""

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
        return self._collect(args)[0]

    def _collect(self, args):
        """check_args's work; returns (dims, [_HostTensor or None] by
        parameter), so that a call reads each tensor once."""
        if len(args) != len(self.params):
            raise TypeError(f"kernel '{self.meta['entry']}' takes {len(self.params)} arguments "
                            f"({', '.join(p['name'] for p in self.params)}), got {len(args)}")
        dims, tensors = {}, [None] * len(self.params)
        for i, (p, a) in enumerate(zip(self.params, args)):
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
            t = _host_tensor(name, a)
            want = as_dtype(p["dtype"])
            if not _same_dtype(want, t.dtype):
                if want.name in PACKED_DTYPES:
                    raise TypeError(f"argument '{name}' holds {want.name} elements, two a byte: "
                                    f"pass a uint8 or int8 array of the bytes, got {t.dtype}")
                raise TypeError(f"argument '{name}' must have dtype {want.name}, got {t.dtype}")
            check_shape(name, p["shape"], t.shape, dims, want.name)
            if "strides" in p:
                check_strides(name, p["strides"], t.shape, t.strides, dims)
            elif not t.contiguous:
                raise ValueError(f"argument '{name}' must be C-contiguous "
                                 "(use np.ascontiguousarray, or .contiguous() on a torch tensor)")
            tensors[i] = t
        check_written(self.params, [t.span() if t is not None else None for t in tensors])
        return dims, tensors

    def __call__(self, *args):
        self._run(args, self._collect(args)[1])

    def launch(self, args):
        """Runs the kernel on checked arguments."""
        self._run(args, [None] * len(self.params))

    def _run(self, args, tensors):
        """Runs the kernel; `tensors` holds the _HostTensor of the tensor
        arguments that _collect read (None: read here)."""
        keep = []
        ptrs = []

        def push(obj):
            keep.append(obj)
            ptrs.append(ctypes.cast(ctypes.pointer(obj), ctypes.c_void_p))

        for p, a, t in zip(self.params, args, tensors):
            if p["kind"] == "scalar":
                dt = as_dtype(p["dtype"])
                ctype = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i32": ctypes.c_int32,
                         "i64": ctypes.c_int64, "index": ctypes.c_int64}.get(dt.mlir)
                if ctype is None:
                    raise TypeError(f"scalar parameters of type {dt.name} are not supported")
                push(ctype(a))
                continue
            if t is None:
                t = _host_tensor(p["name"], a)
            push(ctypes.c_void_p(t.ptr))
            push(ctypes.c_void_p(t.ptr))
            push(ctypes.c_int64(0))
            for size in t.shape:
                push(ctypes.c_int64(size))
            for stride in t.strides:
                push(ctypes.c_int64(stride))
        array = (ctypes.c_void_p * len(ptrs))(*[p.value for p in ptrs])
        self._fn(array)
