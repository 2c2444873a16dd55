"""tvm.tir: the older name of tvm.tirx."""

from ._missing import missing
from .tirx import FloatImm, IntImm, PrimExpr, const  # noqa: F401

# TVM's deeper modules below this one import (see tilemlir.tvm).
__path__ = []


def __getattr__(name):
    return missing(__name__, name)
