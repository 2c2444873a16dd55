"""tvm.error: the error classes TileLang programs catch around compiles."""

from ..errors import InternalError, TVMError
from ._missing import missing

__all__ = ["InternalError", "TVMError"]


def __getattr__(name):
    return missing(__name__, name)
