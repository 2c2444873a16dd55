"""tvm.DataType: a dtype's bits, lanes and kind, from any dtype spelling."""

from ..language.dtypes import DType, as_dtype

# TVM's deeper modules below this one import (see tilemlir.tvm).
__path__ = []


class _DataTypeClass(type):
    def __instancecheck__(cls, obj):
        # TileLang's dtypes (T.float16 ...) are TVM DataTypes; ours are DTypes.
        return type.__instancecheck__(cls, obj) or isinstance(obj, DType)


class DataType(metaclass=_DataTypeClass):
    """`DataType("float16").bits == 16`; compares equal to its name. The
    language's dtypes (T.float16 ...) are instances too, as in TileLang."""

    def __init__(self, dtype):
        text = str(dtype)
        base, _, lanes = text.partition("x")
        self.lanes = int(lanes) if lanes.isdigit() else 1
        self._dtype = as_dtype(dtype if self.lanes == 1 else base)
        self.bits = self._dtype.bits
        self.type_code = self._dtype.kind

    def __str__(self):
        return self._dtype.name + (f"x{self.lanes}" if self.lanes > 1 else "")

    def __repr__(self):
        return f"DataType({str(self)!r})"

    def __eq__(self, other):
        return str(self) == str(other if not isinstance(other, str) else DataType(other))

    def __hash__(self):
        return hash(str(self))
