"""Compiles and runs a small CPU kernel with the Python front end and the
installed compiler library ($TILEMLIR_LIBRARY), from outside the
checkout, and prints what it checked."""

import os
import pathlib

import numpy as np

import tilemlir
import tilemlir.language as T
from tilemlir import _compiler

installed = pathlib.Path(os.environ["TILEMLIR_LIBRARY"])
assert _compiler.library_path() == installed, _compiler.library_path()
print("library:", "installed" if _compiler.available() else "missing")
print("version:", _compiler.version())


@tilemlir.jit(out_idx=[-1], target="cpu")
def add_one(N, block=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] + 1.0
    return main


a = np.arange(256, dtype=np.float32)
b = add_one(256)(a)
print("add_one:", "ok" if np.array_equal(b, a + 1) else "WRONG")
