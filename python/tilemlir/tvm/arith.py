"""tvm.arith: not available here; its names import and raise when used."""

from ._missing import missing


def __getattr__(name):
    return missing(__name__, name)
