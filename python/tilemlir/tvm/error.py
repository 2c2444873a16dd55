"""tvm.error: the error classes TileLang programs catch around compiles."""

from ..errors import InternalError, TVMError
from ._missing import missing

# TVM's deeper modules below this one import (see tilemlir.tvm).
__path__ = []

__all__ = ["InternalError", "TVMError"]


def __getattr__(name):
    return missing(__name__, name)
