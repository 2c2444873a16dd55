"""Packaging: a regular (non-editable) install copies the compiler library
built by `make build` (build/lib/libTileMLIRCAPI.so) into tilemlir/_lib/.

`make wheel` sets TILEMLIR_LIB_DIR to the wheel's build (build-wheel/lib: the
library linked statically against LLVM/MLIR, and the libomp.so.5 that CPU
kernels call); the wheel is then tagged py3-none-manylinux_2_NN_x86_64 (the
bridge is ctypes: one wheel for every Python 3), NN the newest glibc symbol
version the library needs."""

import os
import pathlib
import re
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent
WHEEL_LIB_DIR = os.environ.get("TILEMLIR_LIB_DIR")
LIB_DIR = pathlib.Path(WHEEL_LIB_DIR or HERE.parent / "build" / "lib")
LIBRARY = LIB_DIR / "libTileMLIRCAPI.so"
# Shipped beside the library in the wheel (the development build links the
# system's).
BESIDE = (LIB_DIR / "libomp.so.5",) if WHEEL_LIB_DIR else ()


def glibc_platform(library):
    """manylinux_2_NN_x86_64 for the newest GLIBC_2.NN symbol version that
    `library` and what ships beside it need."""
    minor = 17   # manylinux2014's floor
    for path in (library,) + BESIDE:
        out = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True,
                             check=True).stdout
        for m in re.finditer(r"\bGLIBC_2\.(\d+)\b", out):
            minor = max(minor, int(m.group(1)))
    return f"manylinux_2_{minor}_x86_64"


class BuildPyWithCompiler(build_py):
    def run(self):
        super().run()
        if WHEEL_LIB_DIR and not LIBRARY.exists():
            raise SystemExit(f"setup.py: TILEMLIR_LIB_DIR has no {LIBRARY.name}: {LIB_DIR}")
        if LIBRARY.exists():
            target = pathlib.Path(self.build_lib) / "tilemlir" / "_lib"
            target.mkdir(parents=True, exist_ok=True)
            for path in (LIBRARY,) + BESIDE:
                shutil.copy2(path, target / path.name)


class BinaryDistribution(Distribution):
    """The package of a TILEMLIR_LIB_DIR build holds a native library: it
    installs into platlib (the wheel is not pure)."""

    def has_ext_modules(self):
        return bool(WHEEL_LIB_DIR)


class PlatformWheel(bdist_wheel):
    """The wheel of a TILEMLIR_LIB_DIR build: any Python 3, this platform."""

    def get_tag(self):
        if not WHEEL_LIB_DIR:
            return super().get_tag()
        return "py3", "none", glibc_platform(LIBRARY)


setup(cmdclass={"build_py": BuildPyWithCompiler, "bdist_wheel": PlatformWheel},
      distclass=BinaryDistribution)
