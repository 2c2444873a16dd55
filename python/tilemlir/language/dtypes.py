"""Data types, as objects (T.float16) and as TileLang's strings ("float16",
"float", "bfloat16", ...)."""

import numpy as np


class DType:
    """A scalar type: its TileLang name, MLIR type and numpy dtype."""

    __slots__ = ("name", "mlir", "bits", "kind")

    def __init__(self, name, mlir, bits, kind):
        self.name = name
        self.mlir = mlir
        self.bits = bits
        self.kind = kind  # "float", "int", "uint" or "bool"

    @property
    def is_float(self):
        return self.kind == "float"

    @property
    def is_int(self):
        return self.kind in ("int", "uint", "bool")

    @property
    def numpy(self):
        return _numpy_dtype(self)

    def __call__(self, value):
        """T.float32(1.0): a typed constant (used in expressions)."""
        from .ir import TypedConstant
        return TypedConstant(value, self)

    def __eq__(self, other):
        if isinstance(other, str):
            other = _BY_NAME.get(other)
        return isinstance(other, DType) and other.mlir == self.mlir

    def __hash__(self):
        return hash(self.mlir)

    def __repr__(self):
        return f"T.{self.name}"

    def __str__(self):
        return self.name


float16 = DType("float16", "f16", 16, "float")
bfloat16 = DType("bfloat16", "bf16", 16, "float")
float32 = DType("float32", "f32", 32, "float")
float64 = DType("float64", "f64", 64, "float")
float8_e4m3 = DType("float8_e4m3", "f8E4M3FN", 8, "float")
float8_e5m2 = DType("float8_e5m2", "f8E5M2", 8, "float")
int8 = DType("int8", "i8", 8, "int")
int16 = DType("int16", "i16", 16, "int")
int32 = DType("int32", "i32", 32, "int")
int64 = DType("int64", "i64", 64, "int")
uint8 = DType("uint8", "i8", 8, "uint")
boolean = DType("bool", "i1", 1, "bool")

ALL = [float16, bfloat16, float32, float64, float8_e4m3, float8_e5m2, int8, int16,
       int32, int64, uint8, boolean]

_BY_NAME = {d.name: d for d in ALL}
_BY_NAME.update({
    "float": float32, "half": float16, "double": float64, "bf16": bfloat16,
    "fp16": float16, "fp32": float32, "e4m3_float8": float8_e4m3,
    "e5m2_float8": float8_e5m2, "float8_e4m3fn": float8_e4m3, "int": int32,
})


def as_dtype(value):
    """A DType from a DType, a TileLang dtype string, a numpy or torch dtype."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"unknown dtype {value!r}; expected one of "
                        f"{', '.join(sorted(_BY_NAME))}")
    text = str(value)
    if text.startswith("torch."):
        return as_dtype(text[len("torch."):].replace("float8_e4m3fn", "float8_e4m3"))
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"unknown dtype {value!r}") from None
    for d in ALL:
        # ml_dtypes' types are user-defined numpy types (isbuiltin 2).
        if d.kind == "bool" or (d in _ML_DTYPES and npd.isbuiltin != 2):
            continue
        if _numpy_dtype(d) == npd:
            return d
    if npd == np.bool_:
        return boolean
    raise TypeError(f"unsupported dtype {value!r}")


def _numpy_dtype(d):
    if d in _ML_DTYPES:
        # Imported on first use (it takes longer than the rest of `import
        # tilemlir`), and optional: a GPU machine may have only torch.
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError(f"numpy arrays of {d.name} need the ml_dtypes package "
                            "(pip install ml-dtypes); torch tensors do not") from None
    if d is bfloat16:
        return np.dtype(ml_dtypes.bfloat16)
    if d is float8_e4m3:
        return np.dtype(ml_dtypes.float8_e4m3fn)
    if d is float8_e5m2:
        return np.dtype(ml_dtypes.float8_e5m2)
    if d is boolean:
        return np.dtype(np.bool_)
    return np.dtype(d.name)


# The types whose numpy dtype comes from ml_dtypes.
_ML_DTYPES = (bfloat16, float8_e4m3, float8_e5m2)
