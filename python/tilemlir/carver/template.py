"""tilelang.carver.template: not available (see tilemlir.carver.arch)."""

from ..errors import OutOfReach
from .arch import _WHY

MatmulTemplate = OutOfReach("tilemlir.carver.template.MatmulTemplate", _WHY)
