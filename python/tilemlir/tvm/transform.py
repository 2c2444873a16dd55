"""tvm.transform: PassContext, which carries pass configs."""

from ..transform import PassContext
from ._missing import missing

# TVM's deeper modules below this one import (see tilemlir.tvm).
__path__ = []

__all__ = ["PassContext"]


def __getattr__(name):
    return missing(__name__, name)
