"""tvm.tir: the older name of tvm.tirx."""

from ._missing import missing
from .tirx import FloatImm, IntImm, PrimExpr, const  # noqa: F401


def __getattr__(name):
    return missing(__name__, name)
