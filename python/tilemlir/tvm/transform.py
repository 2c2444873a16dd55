"""tvm.transform: PassContext, which carries pass configs."""

from ..transform import PassContext
from ._missing import missing

__all__ = ["PassContext"]


def __getattr__(name):
    return missing(__name__, name)
