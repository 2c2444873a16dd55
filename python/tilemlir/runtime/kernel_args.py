"""What the GPU runtimes share (runtime/cuda.py, runtime/hip.py): the data
types of bundle parameters, scalar packing, grid expressions, the view of a
tensor argument (torch, or __cuda_array_interface__: ROCm's torch calls its
devices "cuda" too) and `BundleKernel`, which reads a bundle's parameters,
kernel arguments, grid and block, checks the arguments of a call and packs
them into the kernel's parameters. Pure Python: ctypes only."""

import ast
import ctypes
import numbers
import operator
import pathlib
import struct
import sys
import threading

from . import (PACKED_STORAGE, check_shape, check_strides, check_written, dynamic_names,
               span_elements, torch_read_only)

# --- Data types -------------------------------------------------------------------------------


class DriverLibrary:
    """What the CUDA and HIP driver wrappers share: the guarded one-time
    initialisation and a call that raises on failure. Subclasses load the
    library and define `_fn(name)` (the typed ctypes function), `check(call,
    rc, detail)` (raise on an error code) and INIT (the init call's name)."""

    INIT = None

    def _init_calls(self):
        self._fns = {}
        self._lock = threading.Lock()
        self._initialized = False

    def _call(self, name, *args, what=None, detail=""):
        self.check(what or name, self._fn(name)(*args), detail)

    def init(self):
        if not self._initialized:
            with self._lock:
                if not self._initialized:
                    self._call(self.INIT, 0)
                    self._initialized = True

class _DType:
    __slots__ = ("name", "itemsize", "torch", "cai", "kind")

    def __init__(self, name, itemsize, torch, cai, kind):
        self.name = name          # TileLang's name
        self.itemsize = itemsize
        self.torch = torch        # str(torch dtype) without "torch."
        self.cai = cai            # __cuda_array_interface__ typestr without byte order
        self.kind = kind          # "float", "int", "uint", "bool"


_DTYPES = [
    _DType("float16", 2, "float16", "f2", "float"),
    _DType("bfloat16", 2, "bfloat16", None, "float"),
    _DType("float32", 4, "float32", "f4", "float"),
    _DType("float64", 8, "float64", "f8", "float"),
    _DType("float8_e4m3", 1, "float8_e4m3fn", None, "float8"),
    _DType("float8_e5m2", 1, "float8_e5m2", None, "float8"),
    _DType("int8", 1, "int8", "i1", "int"),
    _DType("int16", 2, "int16", "i2", "int"),
    _DType("int32", 4, "int32", "i4", "int"),
    _DType("int64", 8, "int64", "i8", "int"),
    _DType("uint8", 1, "uint8", "u1", "uint"),
    _DType("uint16", 2, "uint16", "u2", "uint"),
    _DType("uint32", 4, "uint32", "u4", "uint"),
    _DType("uint64", 8, "uint64", "u8", "uint"),
    _DType("bool", 1, "bool", "b1", "bool"),
    # Two elements a byte; its tensors are byte tensors (see PACKED_DTYPES).
    _DType("float4_e2m1fn", 1, "float4_e2m1fn_x2", None, "packed"),
]
_BY_NAME = {d.name: d for d in _DTYPES}
_BY_NAME.update({
    # TileLang spellings, MLIR type names and torch names.
    "float": _BY_NAME["float32"], "half": _BY_NAME["float16"], "double": _BY_NAME["float64"],
    "fp16": _BY_NAME["float16"], "fp32": _BY_NAME["float32"], "bf16": _BY_NAME["bfloat16"],
    "f16": _BY_NAME["float16"], "f32": _BY_NAME["float32"], "f64": _BY_NAME["float64"],
    "float8_e4m3fn": _BY_NAME["float8_e4m3"], "e4m3_float8": _BY_NAME["float8_e4m3"],
    "f8E4M3FN": _BY_NAME["float8_e4m3"], "e5m2_float8": _BY_NAME["float8_e5m2"],
    "f8E5M2": _BY_NAME["float8_e5m2"], "int": _BY_NAME["int32"], "i8": _BY_NAME["int8"],
    "i16": _BY_NAME["int16"], "i32": _BY_NAME["int32"], "i64": _BY_NAME["int64"],
    "index": _BY_NAME["int64"], "i1": _BY_NAME["bool"], "boolean": _BY_NAME["bool"],
    "ui8": _BY_NAME["uint8"], "u8": _BY_NAME["uint8"],
    # TileLang's T.ptr: an address, passed as a 64-bit integer.
    "ptr": _BY_NAME["int64"],
})
_BY_CAI = {d.cai: d for d in _DTYPES if d.cai}
_BY_TORCH = {d.torch: d for d in _DTYPES}


def dtype_info(name):
    """The runtime's description of a dtype string (TileLang, MLIR or torch
    spelling)."""
    key = str(name)
    if key.startswith("torch."):
        key = key[len("torch."):]
    d = _BY_NAME.get(key) or _BY_TORCH.get(key)
    if d is None:
        raise TypeError(f"unknown dtype {name!r} in a kernel bundle")
    return d


def _int_range(bits, signed):
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _bf16_bits(x):
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    if (u & 0x7F800000) == 0x7F800000 and (u & 0x007FFFFF):
        return 0x7FC0                                   # NaN
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF   # round to nearest even


def pack_scalar(dtype, value, name="scalar"):
    """A ctypes object holding `value` as a kernel parameter of `dtype`.
    i32/u32/f32 take 4 bytes and 64-bit types 8; narrower types are widened
    into 4 bytes (zero- or sign-extended; the driver reads only the size the
    kernel declares, from the start, on a little-endian host)."""
    d = dtype_info(dtype)
    if d.kind == "float":
        v = float(value)
        if d.itemsize == 4:
            return ctypes.c_float(v)
        if d.itemsize == 8:
            return ctypes.c_double(v)
        if d.name == "float16":
            try:
                (bits,) = struct.unpack("<H", struct.pack("<e", v))
            except OverflowError:
                bits = 0x7C00 if v > 0 else 0xFC00
            return ctypes.c_uint32(bits)
        return ctypes.c_uint32(_bf16_bits(v))
    if d.kind in ("int", "uint", "bool"):
        if isinstance(value, float) and not float(value).is_integer():
            raise TypeError(f"argument '{name}' must be an integer ({d.name}), got {value!r}")
        v = int(value)
        if d.kind == "bool":
            return ctypes.c_uint32(1 if v else 0)
        lo, hi = _int_range(d.itemsize * 8, d.kind == "int")
        if not lo <= v <= hi:
            raise OverflowError(f"argument '{name}' = {v} does not fit in {d.name}")
        if d.itemsize == 8:
            return ctypes.c_int64(v) if d.kind == "int" else ctypes.c_uint64(v)
        return ctypes.c_int32(v) if d.kind == "int" else ctypes.c_uint32(v)
    raise TypeError(f"scalar parameters of type {d.name} are not supported by the GPU runtimes")



# --- Grid expressions ---------------------------------------------------------------------

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_NODE_WORDS = {ast.Call: "a function call", ast.Attribute: "an attribute",
               ast.Subscript: "a subscript", ast.Div: "'/' (use '//')", ast.Pow: "'**'",
               ast.Mod: "'%'", ast.Compare: "a comparison", ast.BoolOp: "'and'/'or'",
               ast.IfExp: "a conditional expression", ast.Lambda: "a lambda"}


class GridExpr:
    """An integer expression over dynamic dimension names, with + - * //,
    parentheses and integer literals only; parsed with `ast`, never eval'd."""

    MAX_LEN = 1000

    def __init__(self, text, names=None):
        self.text = text
        if isinstance(text, bool) or not isinstance(text, (int, str)):
            raise ValueError(f"grid expression {text!r} must be a string or an integer")
        if isinstance(text, int):
            self.names = frozenset()
            self._fn = lambda dims, v=text: v
            return
        if len(text) > self.MAX_LEN:
            raise ValueError(f"grid expression is longer than {self.MAX_LEN} characters")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError) as e:
            raise ValueError(f"grid expression {text!r} does not parse: {e}") from None
        used = set()
        try:
            self._fn = self._compile(tree.body, used, names)
        except RecursionError:
            raise ValueError(f"grid expression {text!r} is nested too deeply") from None
        self.names = frozenset(used)

    def _reject(self, node):
        op = getattr(node, "op", None)
        what = _NODE_WORDS.get(type(node)) or _NODE_WORDS.get(type(op))
        what = what or f"'{type(op or node).__name__}'"
        raise ValueError(f"grid expression {self.text!r} uses {what}, which is not allowed: grid "
                         "expressions may only use integers, dynamic dimension names, + - * // "
                         "and parentheses")

    def _compile(self, node, used, names):
        if isinstance(node, ast.Constant):
            v = node.value
            if type(v) is not int:
                raise ValueError(f"grid expression {self.text!r} has the literal {v!r}; only "
                                 "integers are allowed")
            return lambda dims: v
        if isinstance(node, ast.Name):
            n = node.id
            if names is not None and n not in names:
                known = ", ".join(sorted(names)) or "none"
                raise ValueError(f"grid expression {self.text!r} names '{n}', which is not a "
                                 f"dynamic dimension of the kernel (those are: {known})")
            used.add(n)

            def name(dims):
                try:
                    return dims[n]
                except KeyError:
                    raise ValueError(f"grid expression {self.text!r} needs the dimension "
                                     f"'{n}', which is not known") from None
            return name
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            op = _BINOPS[type(node.op)]
            lhs = self._compile(node.left, used, names)
            rhs = self._compile(node.right, used, names)
            if op is operator.floordiv:
                def div(dims):
                    b = rhs(dims)
                    if b == 0:
                        raise ValueError(f"grid expression {self.text!r} divides by zero "
                                         f"(dimensions {dims})")
                    return lhs(dims) // b
                return div
            return lambda dims: op(lhs(dims), rhs(dims))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            op = _UNARY[type(node.op)]
            arg = self._compile(node.operand, used, names)
            return lambda dims: op(arg(dims))
        self._reject(node)

    def __call__(self, dims):
        return self._fn(dims)

    def __repr__(self):
        return f"GridExpr({self.text!r})"


def eval_grid_expr(text, dims):
    """Evaluates a grid expression with the given dimensions (a dict)."""
    return GridExpr(text, set(dims))(dims)


# --- Tensors ------------------------------------------------------------------------------

class _Tensor:
    """What the runtime needs of a tensor argument."""
    __slots__ = ("ptr", "shape", "strides", "dtype", "device", "contiguous", "obj")

    def __init__(self, ptr, shape, strides, dtype, device, contiguous, obj):
        self.ptr = ptr                # int device address
        self.shape = shape            # tuple of ints
        self.strides = strides        # tuple of ints, in elements (None: not whole elements)
        self.dtype = dtype            # a _DType, or None when not one the runtime knows
        self.device = device          # ordinal, or None when unknown (ask the driver)
        self.contiguous = contiguous
        self.obj = obj


def _c_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def _is_c_contiguous(shape, strides):
    if any(s == 0 for s in shape):
        return True
    return all(st == want for sz, st, want in zip(shape, strides, _c_strides(shape)) if sz != 1)


_TORCH_DTYPES = {}   # torch.dtype -> _DType, filled on first use


def _as_tensor(name, a, api="CUDA"):
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor):
        if not a.is_cuda:
            raise TypeError(f"argument '{name}' is a torch tensor on {a.device}; {api} kernels "
                            "need tensors on a cuda device (use .cuda())")
        # The launch path is hot: torch's own types (torch.Size, ints) are
        # used as they are, and dtypes are looked up by object.
        d = _TORCH_DTYPES.get(a.dtype)
        if d is None:
            dt = str(a.dtype)
            d = _BY_TORCH.get(dt[len("torch."):] if dt.startswith("torch.") else dt)
            _TORCH_DTYPES[a.dtype] = d
        return _Tensor(a.data_ptr(), tuple(a.shape), a.stride(), d, a.get_device(),
                       a.is_contiguous(), a)
    iface = getattr(a, "__cuda_array_interface__", None)
    if iface is not None:
        shape = tuple(int(s) for s in iface["shape"])
        typestr = iface["typestr"]
        d = _BY_CAI.get(typestr[1:])
        itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
        ptr = int(iface["data"][0] or 0)
        st = iface.get("strides")
        if st is None:
            strides, contiguous = _c_strides(shape), True
        else:
            strides = (tuple(int(s) // itemsize for s in st)
                       if all(int(s) % itemsize == 0 for s in st) else None)
            contiguous = strides is not None and _is_c_contiguous(shape, strides)
        return _Tensor(ptr, shape, strides, d, None, contiguous, a)
    kind = f"{type(a).__module__}.{type(a).__name__}"
    hint = " (host memory)" if hasattr(a, "__array_interface__") else ""
    raise TypeError(f"argument '{name}' must be a {api} tensor (a torch tensor on a cuda device, "
                    f"or an object with __cuda_array_interface__), got {kind}{hint}")


def _span(t):
    """(start, end, why read-only) of a contiguous tensor's device memory.
    Read-only: a __cuda_array_interface__ that says so, or a torch tensor
    that torch itself would not let an in-place op write (a leaf that
    requires grad while grad mode is on, an inference tensor outside
    inference mode)."""
    n = span_elements(t.shape, None if t.contiguous else t.strides)
    obj = t.obj
    why = torch_read_only(obj)
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(obj, torch.Tensor):
        data = getattr(obj, "__cuda_array_interface__", {}).get("data")
        if data and len(data) > 1 and data[1]:
            why = "its __cuda_array_interface__ is read-only"
    return t.ptr, t.ptr + n * (t.dtype.itemsize if t.dtype else 1), why


def _check_scalar(name, d, a):
    is_bool = isinstance(a, bool) or type(a).__name__ == "bool_"   # numpy.bool_ too
    if d.kind == "bool":
        ok = is_bool or isinstance(a, numbers.Integral)
    elif d.kind == "float":
        ok = isinstance(a, numbers.Real) and not is_bool
    else:
        ok = isinstance(a, numbers.Integral) and not is_bool
    if not ok:
        raise TypeError(f"argument '{name}' must be a {d.name} scalar, got "
                        f"{type(a).__name__} {a!r}")
    if d.kind in ("int", "uint"):
        lo, hi = _int_range(d.itemsize * 8, d.kind == "int")
        if not lo <= int(a) <= hi:
            raise ValueError(f"argument '{name}' = {a} does not fit in {d.name}")
    return a


def _dtype_name_of(t):
    if t.dtype is not None:
        return t.dtype.name
    obj = t.obj
    if hasattr(obj, "__cuda_array_interface__"):
        return obj.__cuda_array_interface__["typestr"]
    return str(getattr(obj, "dtype", "?"))


def _no_stream(device):
    return 0


def _torch_stream_getter():
    """A function of a device ordinal that gives torch's current stream
    there (a raw handle), or the default stream (0) when the program has
    not imported torch."""
    torch = sys.modules.get("torch")
    if torch is None:
        return _no_stream
    # The raw handle, without building a torch.cuda.Stream (a few
    # microseconds a launch); older torch lacks it.
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda device: int(torch.cuda.current_stream(device).cuda_stream)


# Scalar types of arguments the launch cache takes (by value in its key).
_FAST_SCALARS = frozenset((int, float, bool))


# --- Kernels of a bundle ------------------------------------------------------------------

class BundleKernel:
    """A kernel of a GPU bundle, as far as it is target-neutral: the bundle's
    parameters, kernel arguments, grid, block and dynamic shared memory;
    checking the arguments of a call (_collect) and packing them (pack_args).
    A subclass sets TARGET (the bundle's target word), API (its name in
    messages), STREAM_TYPE, and loads and launches."""

    TARGET = None
    API = None
    STREAM_TYPE = "stream"

    def __init__(self, path, meta, driver=None):
        self.path = pathlib.Path(path)
        self.meta = meta
        self.entry = meta["entry"]
        self.arch = meta.get("arch")
        self.params = meta["params"]
        self._driver = driver
        where = self._where = f"{self.API} bundle {self.path} ({self.entry})"
        if meta.get("target", self.TARGET).split()[0] != self.TARGET:
            raise ValueError(f"{where} is for target {meta.get('target')!r}, not "
                             f"'{self.TARGET}'")
        binary = self.path / meta["binary"]
        try:
            self.image = binary.read_bytes()
        except OSError as e:
            raise ValueError(f"{where}: cannot read its binary {binary}: {e}") from None

        self._dtypes = []
        dyn = set()
        for i, p in enumerate(self.params):
            if p["kind"] not in ("tensor", "scalar"):
                raise ValueError(f"{where}: parameter {i} has unknown kind {p['kind']!r}")
            self._dtypes.append(dtype_info(p["dtype"]))
            if p["kind"] == "tensor":
                dyn.update(dynamic_names(p["shape"]))
        self.dynamic_dims = frozenset(dyn)
        # Integer scalars that grid expressions may name, by parameter index.
        self._grid_scalars = {i: p["name"] for i, (p, d) in enumerate(zip(self.params,
                                                                          self._dtypes))
                              if p["kind"] == "scalar" and d.kind in ("int", "uint")
                              and p["name"] not in dyn}
        # What _collect checks, by parameter: (name, scalar?, dtype, shape,
        # the shape as a tuple where it is static, else None).
        self._checks = tuple(
            (p["name"], p["kind"] == "scalar", d, p.get("shape"),
             tuple(p["shape"]) if p["kind"] == "tensor" and
             all(isinstance(x, int) for x in p["shape"]) else None, p.get("strides"))
            for p, d in zip(self.params, self._dtypes))
        self._args = [self._compile_arg(i, a, where) for i, a in enumerate(meta["kernel_args"])]

        grid = meta["grid"]
        if not 1 <= len(grid) <= 3:
            raise ValueError(f"{where}: grid must have 1 to 3 entries, got {grid!r}")
        self._grid = [GridExpr(g, self.dynamic_dims | set(self._grid_scalars.values()))
                      for g in grid]
        block = [int(b) for b in meta["block"]]
        if not 1 <= len(block) <= 3 or any(b < 1 for b in block):
            raise ValueError(f"{where}: block must be 1 to 3 positive sizes, got {block!r}")
        self.block = tuple(block + [1] * (3 - len(block)))
        self.shared_bytes = int(meta.get("shared_bytes", 0) or 0)
        if self.shared_bytes < 0:
            raise ValueError(f"{where}: shared_bytes is negative")
        self._functions = {}        # context (or device) -> function handle
        self._lock = threading.Lock()
        self._fast = {}             # see launch()
        self._written = tuple(p.get("written") is True for p in self.params)

    def __call__(self, *args, stream=None):
        self.launch(args, stream=stream)

    def _compile_arg(self, i, a, where):
        kind = a.get("kind")
        if kind == "const":
            if not isinstance(a.get("value"), int):
                raise ValueError(f"{where}: kernel argument {i} (const) needs an integer value")
            return dict(a)
        p_index = a.get("param")
        if not isinstance(p_index, int) or not 0 <= p_index < len(self.params):
            raise ValueError(f"{where}: kernel argument {i} names parameter {p_index!r}, which "
                             "does not exist")
        p = self.params[p_index]
        a = dict(a)
        if kind in ("ptr", "dim", "stride") + self.SPECIAL_KINDS:
            if p["kind"] != "tensor":
                raise ValueError(f"{where}: kernel argument {i} ({kind}) needs a tensor, but "
                                 f"parameter '{p['name']}' is a scalar")
            if kind in ("dim", "stride"):
                d = a.get("dim")
                if not isinstance(d, int) or not 0 <= d < len(p["shape"]):
                    raise ValueError(f"{where}: kernel argument {i} takes dimension {d!r} of "
                                     f"'{p['name']}', which has rank {len(p['shape'])}")
            if kind in self.SPECIAL_KINDS:
                self._compile_special_arg(i, a, p_index, where)
        elif kind == "scalar":
            if p["kind"] != "scalar":
                raise ValueError(f"{where}: kernel argument {i} (scalar) names tensor "
                                 f"'{p['name']}'")
            a["dtype"] = dtype_info(a.get("dtype", p["dtype"])).name
            pack_scalar(a["dtype"], 0, p["name"])   # rejects types the runtime cannot pass
        else:
            raise ValueError(f"{where}: kernel argument {i} has unknown kind {kind!r}"
                             f"{self._unknown_kind_hint(kind)}")
        return a

    SPECIAL_KINDS = ()      # tensor argument kinds of one target ("tma" for CUDA)

    def _compile_special_arg(self, i, a, p_index, where):
        """Checks and completes kernel argument `a` (a copy), of a kind in
        SPECIAL_KINDS."""
        raise NotImplementedError

    def _pack_special_arg(self, a, v, p, driver, keep):
        """The ctypes object of kernel argument `a` (of a SPECIAL_KINDS kind)
        for tensor `v` (parameter `p`)."""
        raise NotImplementedError

    def _unknown_kind_hint(self, kind):
        return ""

    @property
    def driver(self):
        return self._driver if self._driver is not None else self._default_driver()

    @staticmethod
    def _default_driver():
        """The process's driver object of the target."""
        raise NotImplementedError

    # Arguments.

    def _collect(self, args):
        """Checks the arguments; returns ([_Tensor or scalar or None], dims)."""
        if len(args) != len(self.params):
            raise TypeError(f"kernel '{self.entry}' takes {len(self.params)} arguments "
                            f"({', '.join(p['name'] for p in self.params)}), got {len(args)}")
        dims = {}
        values = []
        device = None
        for (name, scalar, d, shape, static, strides), a in zip(self._checks, args):
            if a is None:
                values.append(None)
                continue
            if scalar:
                values.append(_check_scalar(name, d, a))
                continue
            t = _as_tensor(name, a, self.API)
            if t.dtype is not d:
                if d.kind != "packed" or t.dtype is None or t.dtype.torch not in PACKED_STORAGE:
                    raise TypeError(f"argument '{name}' must have dtype {d.name}, got "
                                    f"{_dtype_name_of(t)}" + (
                                        " (its bytes: uint8, int8 or float4_e2m1fn_x2)"
                                        if d.kind == "packed" else ""))
            if d.kind == "packed":
                check_shape(name, shape, t.shape, dims, d.name)
            elif static is None or t.shape != static:
                check_shape(name, shape, t.shape, dims)   # binds dynamic sizes, or says why not
            if strides is not None:
                check_strides(name, strides, t.shape, t.strides, dims)
            elif not t.contiguous:
                raise ValueError(f"argument '{name}' must be contiguous (use .contiguous())")
            if t.device is not None:
                if device is None:
                    device = t.device
                elif t.device != device:
                    raise ValueError(f"argument '{name}' is on cuda:{t.device}, but other "
                                     f"arguments are on cuda:{device}")
            values.append(t)
        check_written(self.params, [_span(v) if isinstance(v, _Tensor) else None
                                    for v in values])
        return values, dims

    def check_args(self, args):
        """Checks devices, dtypes, ranks, sizes and layout of the arguments
        (None entries are skipped); returns the dynamic dimensions by name."""
        return self._collect(args)[1]

    def grid_dims(self, dims, values=None):
        """The launch grid (x, y, z) for the given dynamic dimensions and,
        for grids computed from integer scalars, the arguments `values` (as
        _collect returns them)."""
        if values is not None and self._grid_scalars:
            dims = dict(dims)
            for i, name in self._grid_scalars.items():
                if values[i] is not None:
                    dims[name] = int(values[i])
        grid = []
        for g in self._grid:
            v = g(dims)
            if not 0 <= v < 1 << 32:
                raise ValueError(f"grid expression {g.text!r} gives {v} with dimensions {dims}")
            grid.append(v)
        return tuple(grid + [1] * (3 - len(grid)))

    def pack_args(self, values, driver=None, keep=None):
        """The kernel's parameters as ctypes objects, in order (values as
        returned by _collect: tensors wrapped, scalars as they are). Objects
        that a target's special arguments need alive (the padded copies of
        CUDA's TMA arguments) are appended to `keep`, which must live until
        the launch is enqueued."""
        out = []
        for i, a in enumerate(self._args):
            if a["kind"] == "const":
                out.append(ctypes.c_int64(a["value"]))
                continue
            v = values[a["param"]]
            p = self.params[a["param"]]
            if v is None:
                raise ValueError(f"argument '{p['name']}' is missing (None)")
            kind = a["kind"]
            if kind == "ptr":
                out.append(ctypes.c_void_p(v.ptr))
            elif kind == "dim":
                out.append(ctypes.c_int64(v.shape[a["dim"]]))
            elif kind == "stride":
                out.append(ctypes.c_int64(v.strides[a["dim"]]))
            elif kind == "scalar":
                out.append(pack_scalar(a["dtype"], v, p["name"]))
            else:
                out.append(self._pack_special_arg(a, v, p, driver, keep))
        return out

    def _stream(self, stream, device):
        if stream is None:
            return _torch_stream_getter()(device)
        if isinstance(stream, int):
            return stream
        for attr in ("cuda_stream", "ptr", "handle"):
            h = getattr(stream, attr, None)
            if h is not None:
                return int(h.value if isinstance(h, ctypes.c_void_p) else h) or 0
        raise TypeError(f"stream must be a {self.STREAM_TYPE} handle (int), a torch.cuda.Stream "
                        f"or an object with .ptr/.handle, got {type(stream).__name__}")
