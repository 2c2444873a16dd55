"""tvm.ir: not available here; its names import and raise when used."""

from ._missing import missing

# TVM's deeper modules below this one import (see tilemlir.tvm).
__path__ = []


def __getattr__(name):
    return missing(__name__, name)
