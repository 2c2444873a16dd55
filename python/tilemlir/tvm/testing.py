"""tvm.testing: the pytest marks TileLang programs take from it, which are
tilemlir.testing's."""

from ..testing import (requires_cuda, requires_llvm, requires_metal, requires_package,  # noqa: F401
                       requires_rocm)
from ._missing import missing

# TVM's deeper modules below this one import (see tilemlir.tvm).
__path__ = []


def __getattr__(name):
    return missing(__name__, name)
