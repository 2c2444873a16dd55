"""tvm.tirx (TVM's TIR): the expression classes and constants TileLang
programs use on the host, `const(value, dtype)`, `PrimExpr`, `IntImm`,
`FloatImm`. TIR's builders and passes are not here."""

from ..language.dtypes import as_dtype
from ._missing import missing

# TVM's deeper modules below this one import (see tilemlir.tvm).
__path__ = []

__all__ = ["PrimExpr", "IntImm", "FloatImm", "const"]


class PrimExpr:
    """The base of TIR expressions (used here in annotations and isinstance)."""


class _Imm(PrimExpr):
    def __init__(self, dtype, value):
        self.dtype = as_dtype(dtype).name
        self.value = value

    def __repr__(self):
        return f"{type(self).__name__}({self.dtype!r}, {self.value!r})"

    def __eq__(self, other):
        if isinstance(other, _Imm):
            return (self.dtype, self.value) == (other.dtype, other.value)
        return self.value == other

    def __hash__(self):
        return hash((self.dtype, self.value))

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)


class IntImm(_Imm):
    """An integer constant of a dtype: IntImm("int32", 4)."""

    def __init__(self, dtype, value):
        super().__init__(dtype, int(value))


class FloatImm(_Imm):
    """A floating-point constant of a dtype: FloatImm("float32", 0.5)."""

    def __init__(self, dtype, value):
        super().__init__(dtype, float(value))


def const(value, dtype=None):
    """A typed constant: FloatImm for float dtypes, IntImm otherwise; the
    dtype defaults to float32 for floats and int32 for ints."""
    if dtype is None:
        dtype = "float32" if isinstance(value, float) else "int32"
    cls = FloatImm if as_dtype(dtype).is_float else IntImm
    return cls(dtype, value)


def __getattr__(name):
    return missing(__name__, name)
