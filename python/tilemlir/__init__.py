"""TileMLIR: TileLang's tile programming model as an MLIR compiler.

    import tilemlir
    import tilemlir.language as T

A TileLang program runs after replacing `tilelang` by `tilemlir` in its
imports."""

from . import language
from .autotuner import AutoTuner, autotune
from .errors import TileCompileError
from .jit import JITKernel, compile, jit  # noqa: A004
from .profiler import TensorSupplyType

__version__ = "0.1.0"

__all__ = ["language", "jit", "compile", "JITKernel", "TileCompileError", "TensorSupplyType",
           "autotune", "AutoTuner", "__version__"]
