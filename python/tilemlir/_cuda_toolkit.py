"""Where the CUDA tools that compiling for NVIDIA GPUs uses are: ptxas (PTX
to cubin) and libdevice (the math functions' bitcode).

A wheel install has no toolkit of its own. ptxas is looked for, in this
order, in $CUDA_HOME (then $CUDA_PATH, $CUDA_ROOT), on $PATH, in
/usr/local/cuda, in the nvidia-cuda-nvcc wheel (the `nvidia` namespace
package) and in Triton's wheel (triton/backends/nvidia/bin). libdevice comes
from beside that ptxas when it is there, else from the first of those places
that has one. Without ptxas, kernels are compiled to PTX, which the CUDA
driver compiles when it loads them (said once)."""

import hashlib
import importlib.util
import os
import pathlib
import shutil
import sys

SYSTEM_CUDA = "/usr/local/cuda"
_ENV_VARS = ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")
_LIBDEVICE = pathlib.Path("nvvm", "libdevice", "libdevice.10.bc")


class Toolkit:
    """What was found: `ptxas` and `libdevice` (paths or None), where each
    came from, and `root`, the directory handed to the compiler (bin/ptxas
    and nvvm/libdevice/libdevice.10.bc under it, as far as found)."""

    def __init__(self, ptxas, ptxas_from, libdevice, libdevice_from, root):
        self.ptxas = ptxas
        self.ptxas_from = ptxas_from
        self.libdevice = libdevice
        self.libdevice_from = libdevice_from
        self.root = root

    def __repr__(self):
        return (f"Toolkit(ptxas={self.ptxas} [{self.ptxas_from}], "
                f"libdevice={self.libdevice} [{self.libdevice_from}], root={self.root})")


def _executable(path):
    return path.is_file() and os.access(path, os.X_OK)


def _package_dirs(name):
    """The directories of package `name` (several for a namespace package),
    without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return [pathlib.Path(p) for p in spec.submodule_search_locations]


def _candidates():
    """(where, ptxas path, libdevice paths) in the lookup order."""
    for var in _ENV_VARS:
        value = os.environ.get(var)
        if value:
            root = pathlib.Path(value)
            yield f"${var}", root / "bin" / "ptxas", [root / _LIBDEVICE]
    on_path = shutil.which("ptxas")
    if on_path:
        root = pathlib.Path(on_path).resolve().parent.parent
        yield "PATH", pathlib.Path(on_path), [root / _LIBDEVICE]
    root = pathlib.Path(SYSTEM_CUDA)
    yield SYSTEM_CUDA, root / "bin" / "ptxas", [root / _LIBDEVICE]
    # nvidia-cuda-nvcc: nvidia/cuda_nvcc/ (CUDA 12) or nvidia/cu13/ (CUDA 13).
    for base in _package_dirs("nvidia"):
        for root in sorted(base.glob("*/bin/ptxas")):
            root = root.parent.parent
            yield "nvidia-cuda-nvcc", root / "bin" / "ptxas", [root / _LIBDEVICE]
    for base in _package_dirs("triton"):
        nv = base / "backends" / "nvidia"
        yield "triton", nv / "bin" / "ptxas", [nv / "lib" / "libdevice.10.bc"]


def find():
    """The Toolkit of this machine (looked up anew on every call)."""
    ptxas = ptxas_from = libdevice = libdevice_from = None
    for where, tool, libdevices in _candidates():
        here = next((p for p in libdevices if p.is_file()), None)
        if ptxas is None and _executable(tool):
            ptxas, ptxas_from = tool, where
            if here is not None:
                libdevice, libdevice_from = here, where
        if libdevice is None and here is not None:
            libdevice, libdevice_from = here, where
        if ptxas is not None and libdevice is not None:
            break
    return Toolkit(ptxas, ptxas_from, libdevice, libdevice_from,
                   _root(ptxas, libdevice))


def _root(ptxas, libdevice):
    """A directory laid out as a CUDA toolkit for what was found: the
    toolkit itself when both lie in it, else one of links in the cache.
    None without libdevice: the compiler refuses a toolkit that lacks it,
    and looks on its own (the environment, /usr/local/cuda)."""
    if libdevice is None:
        return None
    if ptxas is not None and libdevice == ptxas.parent.parent / _LIBDEVICE:
        return ptxas.parent.parent
    from .jit.cache import cache_dir
    key = hashlib.sha256(f"{ptxas}\n{libdevice}".encode()).hexdigest()[:16]
    root = pathlib.Path(cache_dir()) / "toolkit" / key
    for name, target in ((pathlib.Path("bin", "ptxas"), ptxas), (_LIBDEVICE, libdevice)):
        link = root / name
        if target is None or (link.is_symlink() and os.readlink(link) == str(target)):
            continue
        # Made beside and renamed over: processes that share the cache race
        # harmlessly.
        link.parent.mkdir(parents=True, exist_ok=True)
        tmp = link.with_name(f".{link.name}.{os.getpid()}")
        if tmp.is_symlink():
            tmp.unlink()
        tmp.symlink_to(target)
        os.replace(tmp, link)
    return root


_told = False


def tell_no_ptxas():
    """The one-time message of compiling to PTX for the driver."""
    global _told
    if _told:
        return
    _told = True
    print("tilemlir: no ptxas found ($CUDA_HOME, PATH, /usr/local/cuda, the "
          "nvidia-cuda-nvcc or triton wheel): kernels are compiled to PTX, which the CUDA "
          "driver compiles when it loads them", file=sys.stderr)
