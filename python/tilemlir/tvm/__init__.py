"""What TileLang programs take from TVM, for `from tilelang import tvm` and
`import tvm` after the import change: `tvm.target.Target`, `tvm.DataType`,
`tvm.tirx.const` / `PrimExpr` / `FloatImm`, `tvm.error.InternalError` and
`tvm.TVMError` (tilemlir's compile errors derive from them) and
`tvm.transform.PassContext` (carries pass configs to the compiles inside it).

The rest of TVM (its IR, passes, script builder) is not here: such a name
imports, and using it raises an error that names it (see OutOfReach)."""

import importlib

from ..errors import TVMError
from ._missing import missing
from .datatype import DataType

_SUBMODULES = ("target", "tirx", "tir", "error", "transform", "ir", "arith", "testing")

__all__ = ["DataType", "TVMError"] + list(_SUBMODULES)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    return missing(__name__, name)
