"""TileLang's tilelang.testing: pytest marks for the GPU a test needs, a
seeded RNG, tensor comparison, and main() to run a test file."""

import inspect
import random
import sys

import numpy as np

from ..utils.tensor import torch_assert_close

__all__ = ["main", "set_random_seed", "torch_assert_close", "requires_cuda",
           "requires_cuda_compute_version", "requires_package", "requires_llvm",
           "requires_metal", "requires_rocm", "requires_cdna", "requires_cuda_or_cdna",
           "requires_gfx950"] + [f"requires_cuda_compute_version_{op}"
                                 for op in ("ge", "gt", "le", "lt", "eq")]


def _pytest():
    import pytest
    return pytest


def main():
    """Runs the calling test file under pytest (`if __name__ == "__main__"`)."""
    test_file = inspect.getsourcefile(sys._getframe(1))
    sys.exit(_pytest().main([test_file] + sys.argv[1:]))


def set_random_seed(seed=42):
    """Seeds Python's, numpy's and (when installed) torch's generators."""
    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch
    except ImportError:
        return
    torch.manual_seed(seed)


def _compute_version():
    """(major, minor) of the first CUDA GPU, (0, 0) without one."""
    from ..contrib import nvcc
    try:
        return nvcc.parse_compute_version(nvcc.get_target_compute_version())
    except ValueError:
        return (0, 0)


def _mark(skip, reason):
    """A decorator that applies a pytest skipif mark."""
    return _pytest().mark.skipif(skip, reason=reason)


def requires_cuda(func=None):
    """Skips the test where no CUDA GPU is found (usable bare or called)."""
    mark = _mark(_compute_version() == (0, 0), "needs a CUDA GPU")
    return mark(func) if func is not None else mark


_COMPARE = {"ge": lambda a, b: a >= b, "gt": lambda a, b: a > b, "le": lambda a, b: a <= b,
            "lt": lambda a, b: a < b, "eq": lambda a, b: a == b}


def requires_cuda_compute_version(major_version, minor_version=0, mode="ge"):
    """Skips the test unless a CUDA GPU is found whose compute version is
    `mode` (ge, gt, le, lt, eq) (major_version, minor_version)."""
    if mode not in _COMPARE:
        raise ValueError(f"mode must be one of {', '.join(_COMPARE)}, got {mode!r}")
    have, want = _compute_version(), (major_version, minor_version)
    skip = have == (0, 0) or not _COMPARE[mode](have, want)
    return _mark(skip, f"needs CUDA compute {mode} {want[0]}.{want[1]}, "
                       f"have {have[0]}.{have[1]}")


def _version_mark(mode):
    def requires(major_version, minor_version=0):
        return requires_cuda_compute_version(major_version, minor_version, mode)
    requires.__name__ = f"requires_cuda_compute_version_{mode}"
    requires.__doc__ = f"requires_cuda_compute_version(..., mode={mode!r})"
    return requires


requires_cuda_compute_version_ge = _version_mark("ge")
requires_cuda_compute_version_gt = _version_mark("gt")
requires_cuda_compute_version_le = _version_mark("le")
requires_cuda_compute_version_lt = _version_mark("lt")
requires_cuda_compute_version_eq = _version_mark("eq")


def requires_package(*packages):
    """Skips the test unless every named Python package imports."""
    import importlib.util
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    return _mark(bool(missing), f"needs the package(s) {', '.join(missing)}")


def requires_llvm(func=None):
    """The CPU target is always built: never skips."""
    mark = _mark(False, "")
    return mark(func) if func is not None else mark


def _never(name, why):
    def requires(func=None):
        mark = _mark(True, why)
        return mark(func) if func is not None else mark
    requires.__name__ = name
    requires.__doc__ = f"Always skips: {why}."
    return requires


requires_metal = _never("requires_metal", "tilemlir has no Metal backend")
requires_rocm = _never("requires_rocm", "tilemlir's AMD backend is not built")
requires_cdna = _never("requires_cdna", "tilemlir's AMD backend is not built")
requires_gfx950 = _never("requires_gfx950", "tilemlir's AMD backend is not built")
requires_cuda_or_cdna = requires_cuda
