"""Packaging: a regular (non-editable) install copies the compiler library
built by `make build` (build/lib/libTileMLIRCAPI.so) into tilemlir/_lib/."""

import pathlib
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent
LIBRARY = HERE.parent / "build" / "lib" / "libTileMLIRCAPI.so"


class BuildPyWithCompiler(build_py):
    def run(self):
        super().run()
        if LIBRARY.exists():
            target = pathlib.Path(self.build_lib) / "tilemlir" / "_lib"
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(LIBRARY, target / LIBRARY.name)


setup(cmdclass={"build_py": BuildPyWithCompiler})
