"""TileMLIR: TileLang's tile programming model as an MLIR compiler.

    import tilemlir
    import tilemlir.language as T

A TileLang program runs after replacing `tilelang` by `tilemlir` in its
imports."""

import importlib

from . import language
from .autotuner import AutoTuner, autotune
from .errors import TileCompileError
from .jit import JITKernel, compile, jit  # noqa: A004
from .profiler import TensorSupplyType

__version__ = "0.1.0"

# TileLang's ceildiv on Python numbers, and T.ceildiv inside kernels.
cdiv = language.ceildiv

from .jit.cache import disable_cache, enable_cache, is_cache_enabled  # noqa: E402

# Imported on first use, so that `import tilemlir` stays fast.
_LAZY = {"PassConfigKey": ("transform", "PassConfigKey"), "DataType": ("tvm", "DataType"),
         "lower": ("engine", "lower")}
_SUBMODULES = ("tvm", "transform", "testing", "utils", "contrib", "carver", "profiler",
               "runtime", "layout", "engine", "cuda", "ir")

__all__ = ["language", "jit", "compile", "JITKernel", "TileCompileError", "TensorSupplyType",
           "autotune", "AutoTuner", "cdiv", "PassConfigKey", "DataType", "__version__", "lower",
           "disable_cache", "enable_cache", "is_cache_enabled"]


def __getattr__(name):
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
