"""What TileLang programs take from TVM, for `from tilelang import tvm` and
`import tvm` after the import change: `tvm.target.Target`, `tvm.DataType`,
`tvm.tirx.const` / `PrimExpr` / `FloatImm`, `tvm.error.InternalError` and
`tvm.TVMError` (tilemlir's compile errors derive from them) and
`tvm.transform.PassContext` (carries pass configs to the compiles inside it).

The rest of TVM (its IR, passes, script builder) is not here: such a name
imports, also from TVM's deeper modules (`from tvm.tirx.expr import Var`),
and using it raises an error that names it (see OutOfReach)."""

import functools
import importlib
import importlib.abc
import importlib.util
import sys

from ..errors import TVMError
from ._missing import missing
from .datatype import DataType

_SUBMODULES = ("target", "tirx", "tir", "error", "transform", "ir", "arith", "testing")

__all__ = ["DataType", "TVMError"] + list(_SUBMODULES)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    return missing(__name__, name)


class _DeeperModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """TVM's deeper modules that programs import names from
    (`tvm.script.ir_builder.base`, `tvm.tirx.expr`, ...): each imports as a
    module whose names are those of the nearest module of this package
    above it that has them (tvm.tirx.expr.IntImm is tvm.tirx.IntImm), and
    the others raise where they are used (OutOfReach). Consulted after the
    real modules of this package."""

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith(__name__ + ".") or fullname.rpartition(".")[2][:1] == "_":
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__path__ = []
        module.__getattr__ = functools.partial(_inherited, module.__name__)


def _inherited(module, name):
    if name.startswith("_"):
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    parent = module.rpartition(".")[0]
    while parent != __name__:
        real = sys.modules.get(parent)
        if real is not None and getattr(real, "__file__", None) and name in vars(real):
            return vars(real)[name]
        parent = parent.rpartition(".")[0]
    return missing(module, name)


if not any(isinstance(f, _DeeperModules) for f in sys.meta_path):
    sys.meta_path.append(_DeeperModules())
