"""The TVM names tilemlir does not provide."""

from ..errors import OutOfReach

_WHY = "tilemlir compiles through MLIR, not TVM; this TVM API has no counterpart here"


def missing(module, name):
    """For a module's __getattr__: an OutOfReach for a public name, the
    usual AttributeError for private and special ones."""
    if name.startswith("_"):
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    public = module.replace("tilemlir.tvm", "tvm", 1)
    return OutOfReach(f"{public}.{name}", _WHY)
