"""tilelang.carver.roller.rasterization: not available (see tilemlir.carver.arch)."""

from ...errors import OutOfReach
from ..arch import _WHY

NoRasterization = OutOfReach("tilemlir.carver.roller.rasterization.NoRasterization", _WHY)
