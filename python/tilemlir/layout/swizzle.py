"""tilelang.layout.swizzle: the shared-memory swizzles by name (the same
objects as tilemlir.layout's)."""

from . import (make_full_bank_swizzled_layout, make_half_bank_swizzled_layout,  # noqa: F401
               make_linear_layout, make_quarter_bank_swizzled_layout, make_swizzled_layout,
               make_wgmma_swizzled_layout)
from ..errors import OutOfReach

__all__ = ["make_swizzled_layout", "make_wgmma_swizzled_layout", "make_full_bank_swizzled_layout",
           "make_half_bank_swizzled_layout", "make_quarter_bank_swizzled_layout",
           "make_linear_layout"]


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return OutOfReach(f"tilelang.layout.swizzle.{name}",
                      "TileMLIR's swizzles are the 128/64/32-byte ones of tilemlir.layout")
