"""Data types, as objects (T.float16) and as TileLang's strings ("float16",
"float", "bfloat16", ...)."""

import numpy as np


class DType(str):
    """A scalar type: its TileLang name, MLIR type and numpy dtype.

    `T.dtype` is this class: `T.dtype("float16")`, `T.dtype(torch.float16)`
    or `T.dtype(T.float16)` give the one DType object of that type (TileLang
    programs also annotate dtype parameters with it). As TileLang's, it is
    a string, its name (`getattr(torch, T.float16)`, dict keys, JSON).
    `lanes` > 1 is a vector dtype (`T.float32x2`); `storage` is None where
    kernels may hold the type in buffers and tensors, else why they may
    not."""

    def __new__(cls, value):
        return as_dtype(value)

    def __getnewargs__(self):
        return (self.name,)

    @classmethod
    def _define(cls, name, mlir, bits, kind, lanes=1, storage=None):
        d = str.__new__(cls, name)
        d.name, d.mlir, d.bits, d.kind, d.lanes, d.storage = name, mlir, bits, kind, lanes, storage
        return d

    @property
    def is_float(self):
        return self.kind == "float"

    @property
    def is_int(self):
        return self.kind in ("int", "uint", "bool")

    @property
    def bytes(self):
        """Bytes of one value (all lanes); a 4-bit type takes half a byte."""
        return self.bits * self.lanes / 8 if self.bits < 8 else self.bits * self.lanes // 8

    @property
    def numpy(self):
        """The numpy dtype of host arrays of this type (uint8 bytes for
        packed 4-bit types)."""
        return _numpy_dtype(self)

    @property
    def packed(self):
        """Whether elements are stored two a byte (a tensor's innermost
        extent is twice its storage's)."""
        return self.lanes == 1 and self.bits == 4 and self.storage is None

    def storage_shape(self, shape):
        """The shape of the tensor that stores `shape` elements of this type:
        the innermost extent halved for packed types."""
        shape = tuple(shape)
        if not self.packed or not shape:
            return shape
        return shape[:-1] + (shape[-1] // 2,)

    def as_torch(self):
        """The torch dtype of tensors holding this type (TileLang's choice:
        int4 and float4_e2m1fn are stored in bytes)."""
        import torch
        if self.name == "handle":
            return None
        name = _TORCH_STORAGE.get(self.name, self.name)
        for candidate in ([name] if isinstance(name, str) else name):
            if hasattr(torch, candidate):
                return getattr(torch, candidate)
        raise ValueError(f"dtype {self.name} has no torch dtype in this torch ({torch.__version__})")

    def is_float4_e2m1fn(self):
        return self.name == "float4_e2m1fn"

    def is_float4_e2m1_unpacked(self):
        return False

    def is_float4(self):
        return self.is_float4_e2m1fn()

    def __call__(self, value):
        """T.float32(1.0): a typed constant (used in expressions)."""
        from .ir import TypedConstant
        return TypedConstant(value, self)

    def __eq__(self, other):
        if isinstance(other, str):
            other = _BY_NAME.get(other)
        return isinstance(other, DType) and (other.mlir, other.kind) == (self.mlir, self.kind)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"T.{self.name}"

    def __str__(self):
        return self.name


_d = DType._define
float16 = _d("float16", "f16", 16, "float")
bfloat16 = _d("bfloat16", "bf16", 16, "float")
float32 = _d("float32", "f32", 32, "float")
float64 = _d("float64", "f64", 64, "float")
float8_e4m3 = _d("float8_e4m3", "f8E4M3FN", 8, "float")
float8_e5m2 = _d("float8_e5m2", "f8E5M2", 8, "float")
int8 = _d("int8", "i8", 8, "int")
int16 = _d("int16", "i16", 16, "int")
int32 = _d("int32", "i32", 32, "int")
int64 = _d("int64", "i64", 64, "int")
uint8 = _d("uint8", "i8", 8, "uint")
uint16 = _d("uint16", "i16", 16, "uint")
uint32 = _d("uint32", "i32", 32, "uint")
uint64 = _d("uint64", "i64", 64, "uint")
boolean = _d("bool", "i1", 1, "bool")
# Two elements a byte, the first in the low nibble (TileLang's packing and
# torch's float4_e2m1fn_x2): tensors of it are byte tensors whose innermost
# extent is half the logical one.
float4_e2m1fn = _d("float4_e2m1fn", "f4E2M1FN", 4, "float")
# TileLang's T.ptr: a device address, held as a 64-bit integer (a T.ptr
# parameter takes a tensor or its data_ptr(); a T.Tensor(..., T.ptr) is a
# table of them, an int64 tensor on the host). T.make_tensor reads it.
ptr = _d("ptr", "i64", 64, "int")

ALL = [float16, bfloat16, float32, float64, float8_e4m3, float8_e5m2, int8, int16,
       int32, int64, uint8, uint16, uint32, uint64, boolean, float4_e2m1fn, ptr]

# TileLang names that exist here as dtypes (T.dtype(...), .bits, .as_torch())
# but that kernels cannot hold in buffers and tensors yet.
_NO_4BIT = "4-bit elements (packed two a byte) are not supported in buffers and tensors yet"
_NO_FP8 = ("this float8 variant is not supported in buffers and tensors; float8_e4m3 "
           "(e4m3fn) and float8_e5m2 are")
NAME_ONLY = [
    _d("int4", "i4", 4, "int", storage=_NO_4BIT),
    _d("uint4", "i4", 4, "uint", storage=_NO_4BIT),
    _d("float8_e4m3fnuz", "f8E4M3FNUZ", 8, "float", storage=_NO_FP8),
    _d("float8_e5m2fnuz", "f8E5M2FNUZ", 8, "float", storage=_NO_FP8),
    _d("float8_e8m0fnu", "f8E8M0FNU", 8, "float", storage=_NO_FP8),
    _d("handle", "!llvm.ptr", 64, "handle",
       storage="T.handle is an opaque pointer; declare tensors with T.Tensor(shape, dtype)"),
]

_BY_NAME = {d.name: d for d in ALL + NAME_ONLY}

# Vector dtypes (TileLang's T.float32x2 ...): values of `lanes` elements
# moved as one; buffers here hold scalars, so a vector dtype names a value
# type only (the x2 / x4 atomics take it from their call).
_VECTOR_BASES = [float16, bfloat16, float32, float64, float8_e4m3, float8_e5m2, int8, int16,
                 int32, int64, uint8, uint16, uint32, uint64]
VECTORS = []
for _base in _VECTOR_BASES:
    for _lanes in (2, 4, 8, 16, 32, 64):
        VECTORS.append(_d(f"{_base.name}x{_lanes}", f"vector<{_lanes}x{_base.mlir}>", _base.bits,
                          _base.kind, _lanes,
                          storage=f"vector dtype {_base.name}x{_lanes}: buffers and tensors hold "
                                  f"scalars here (use {_base.name} with a last dimension of "
                                  f"{_lanes})"))
# TileLang's packed pairs (float4_e2m1fnx2 is torch's float4_e2m1fn_x2, one
# byte) and wider vectors of them: value types only, as the other vectors.
for _lanes in (2, 4, 8, 16, 32, 64):
    VECTORS.append(_d(f"float4_e2m1fnx{_lanes}", f"vector<{_lanes}xf4E2M1FN>", 4, "float",
                      _lanes,
                      storage=f"vector dtype float4_e2m1fnx{_lanes}: buffers and tensors hold "
                              "scalars here (use float4_e2m1fn, stored two a byte, with a "
                              f"last dimension of {_lanes})"))
_BY_NAME.update({d.name: d for d in VECTORS})
_BY_NAME.update({
    "float": float32, "half": float16, "double": float64, "bf16": bfloat16,
    "fp16": float16, "fp32": float32, "e4m3_float8": float8_e4m3,
    "e5m2_float8": float8_e5m2, "float8_e4m3fn": float8_e4m3, "int": int32,
    "short": int16, "long": int64, "uint": uint32, "ulong": uint64,
    "float4_e2m1fn_x2": _BY_NAME["float4_e2m1fnx2"],
})
_BY_NAME.update({f"float8_e4m3fnx{n}": _BY_NAME[f"float8_e4m3x{n}"] for n in (2, 4, 8, 16, 32, 64)})

# TileLang's torch storage of the types torch lacks (several spellings
# across torch versions).
_TORCH_STORAGE = {
    "float8_e4m3": "float8_e4m3fn", "int4": "int8", "uint4": "uint8",
    "float4_e2m1fn": ("float4_e2m1fn_x2", "int8"), "bool": "bool",
    "float4_e2m1fnx2": ("float4_e2m1fn_x2",),
}

_all_dtypes = sorted(_BY_NAME)


def _torch_tables():
    import torch
    table = {}
    fp4x2 = getattr(torch, "float4_e2m1fn_x2", None)
    if fp4x2 is not None:
        table[fp4x2] = "float4_e2m1fnx2"
    for d in ALL + NAME_ONLY:
        if d is float4_e2m1fn:
            continue
        if d.storage is None or d.name in ("float8_e4m3fnuz", "float8_e5m2fnuz",
                                           "float8_e8m0fnu"):
            t = getattr(torch, _TORCH_STORAGE.get(d.name, d.name), None)
            if isinstance(t, torch.dtype):
                table.setdefault(t, d.name)
    return table


def __getattr__(name):
    """TileLang's torch <-> dtype-name tables, built when first asked for
    (this module does not import torch)."""
    if name == "_TORCH_DTYPE_TO_STR":
        return _torch_tables()
    if name == "_STR_TO_TORCH_DTYPE":
        return {v: k for k, v in _torch_tables().items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


dtype = DType


def get_tvm_dtype(value):
    return as_dtype(value)


def resolve_torch_storage_dtype(value):
    """The dtype of the torch tensors that store `value`'s type."""
    return as_dtype(as_dtype(value).as_torch())


def is_float4_e2m1fn(value):
    return as_dtype(value).is_float4_e2m1fn()


def is_float4_e2m1_unpacked(value):
    return as_dtype(value).is_float4_e2m1_unpacked()


def is_float4(value):
    return as_dtype(value).is_float4()


def storable(value):
    """The DType of `value`, which kernels may hold in buffers and tensors;
    a TypeError that says why not otherwise."""
    d = as_dtype(value)
    if d.storage is not None:
        raise TypeError(f"dtype {d.name}: {d.storage}")
    return d


def check_packed_extent(d, shape, what):
    """A TypeError when a tensor or shared buffer (`what`) of packed dtype
    `d` has an odd static innermost extent: two of its elements share a
    byte, so each row must be whole bytes."""
    if d.packed and shape and isinstance(shape[-1], int) and shape[-1] % 2:
        raise TypeError(f"{what} of {d.name} has an odd innermost extent ({shape[-1]}): "
                        f"{d.name} elements are stored two a byte, so the innermost extent "
                        "must be even")


def as_dtype(value):
    """A DType from a DType, a TileLang dtype string, a numpy or torch dtype."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"unknown dtype {value!r}; expected one of "
                        f"{', '.join(n for n in _all_dtypes if _BY_NAME[n].lanes == 1)} "
                        "(or a vector dtype such as float32x2)")
    if value in _PYTHON_TYPES:
        return _PYTHON_TYPES[value]
    text = str(value)
    if text.startswith("torch."):
        return as_dtype(text[len("torch."):].replace("float8_e4m3fn", "float8_e4m3"))
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"unknown dtype {value!r}") from None
    for d in ALL:
        # ml_dtypes' types are user-defined numpy types (isbuiltin 2).
        if d.kind == "bool" or d.packed or (d in _ML_DTYPES and npd.isbuiltin != 2):
            continue
        if _numpy_dtype(d) == npd:
            return d
    if npd == np.bool_:
        return boolean
    raise TypeError(f"unsupported dtype {value!r}")


_PYTHON_TYPES = {bool: boolean, int: int32, float: float32}


def _numpy_dtype(d):
    if d.storage is not None:
        raise TypeError(f"dtype {d.name} has no numpy dtype here: {d.storage}")
    if d in _ML_DTYPES:
        # Imported on first use (it takes longer than the rest of `import
        # tilemlir`), and optional: a GPU machine may have only torch.
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError(f"numpy arrays of {d.name} need the ml_dtypes package "
                            "(pip install ml-dtypes); torch tensors do not") from None
    if d == bfloat16:
        return np.dtype(ml_dtypes.bfloat16)
    if d == float8_e4m3:
        return np.dtype(ml_dtypes.float8_e4m3fn)
    if d == float8_e5m2:
        return np.dtype(ml_dtypes.float8_e5m2)
    if d == boolean:
        return np.dtype(np.bool_)
    if d == ptr:
        return np.dtype(np.int64)
    if d.packed:
        # Host arrays of packed elements hold their bytes.
        return np.dtype(np.uint8)
    return np.dtype(d.name)


# The types whose numpy dtype comes from ml_dtypes.
_ML_DTYPES = (bfloat16, float8_e4m3, float8_e5m2)
