"""tilelang.ir: TileLang's TIR node classes and the helpers that read and set
the source spans of its TIR statements and buffers. TileMLIR has no TIR: its
IR carries the user's file, line and column as MLIR locations, and every
compile error names them. The names import; using one raises an error that
names it (OutOfReach). GemmWarpPolicy is the language's."""

from .errors import OutOfReach
from .language import GemmWarpPolicy  # noqa: F401

_WHY = ("TileMLIR has no TIR statements or buffers; its IR carries the user's file and line as "
        "MLIR locations, which every compile error names")


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return OutOfReach(f"tilelang.ir.{name}", _WHY)
