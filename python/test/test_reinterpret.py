"""T.reinterpret(value, dtype): a scalar's or vector's bits read as another
type of the same width, on the CPU against numpy's views; mismatched widths
are located errors."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def test_float_and_integer_bits_round_trip(rng):
    N = 100

    @T.prim_func
    def k(A: T.Tensor((N,), "float32"), H: T.Tensor((N,), "float16"),
          Bits: T.Tensor((N,), "int32"), Back: T.Tensor((N,), "float32"),
          HBits: T.Tensor((N,), "uint16")):
        with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
            for i in T.Parallel(32):
                j = bx * 32 + i
                if j < N:
                    b = T.reinterpret(A[j], "int32")
                    Bits[j] = b
                    Back[j] = T.reinterpret(b + 1, T.float32)
                    HBits[j] = T.reinterpret(H[j], T.uint16)

    a = rng.standard_normal(N).astype(np.float32)
    h = rng.standard_normal(N).astype(np.float16)
    bits, back, hbits = tilemlir.compile(k, out_idx=[2, 3, 4], target="cpu")(a, h)
    np.testing.assert_array_equal(bits, a.view(np.int32))
    np.testing.assert_array_equal(back, (a.view(np.int32) + 1).view(np.float32))
    np.testing.assert_array_equal(hbits, h.view(np.uint16))


def test_width_mismatch_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float16")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(8):
                B[i] = T.reinterpret(A[i], "float16")  # <width>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "width", "32-bit f32 value as f16 (16 bits)", "widths must match",
                   source=THIS_FILE)


def test_untyped_number_is_a_located_error():
    @T.prim_func
    def k(B: T.Tensor((8,), "int32")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(8):
                B[i] = T.reinterpret(1.5, "int32")  # <number>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "number", "give the value a dtype first", source=THIS_FILE)


def test_vector_of_another_width_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float32")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(8):
                B[i] = T.reinterpret(A[i], T.float32x2)  # <vector>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "vector", "32-bit f32 value as vector<2xf32> (64 bits)", source=THIS_FILE)
