"""TileLang's raw word loads and stores: T.ldg32 ... T.ldg256 / T.stg32 ...
T.stg256 on global tensors (with a predicate), T.lds32 ... T.sts128 on
shared buffers, and vector values reinterpreted and stored to regions.
Checked on the CPU against numpy; their PTX is one vector access of the
width; mistakes are located errors."""

import inspect
import re

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)

LOADS = {32: T.ldg32, 64: T.ldg64, 128: T.ldg128, 256: T.ldg256}
STORES = {32: T.stg32, 64: T.stg64, 128: T.stg128, 256: T.stg256}
VECTOR = {64: T.float32x2, 128: T.float32x4, 256: T.float32x8}


def copy_kernel(N, bits, predicated):
    """Each block moves `bits` bits of X to Y through a word load and a word
    store, the first half of the blocks only when predicated; with 64 bits
    and more the load's words also go to Z as float lanes of a region."""
    n = bits // 32
    ld, st = LOADS[bits], STORES[bits]

    @T.prim_func
    def k(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"),
          Z: T.Tensor((N,), "float32")):
        with T.Kernel(N // n, threads=32) as b:
            if n == 1:
                w = ld(X[b], pred=(b < N // 2) if predicated else None)
                st(Y[b], w, pred=(b < N // 2) if predicated else None)
                Z[b] = T.reinterpret(w, T.float32)
            else:
                w = ld(X[b * n:b * n + n], pred=(b < N // n // 2) if predicated else None)
                st(Y[b * n:b * n + n], w, pred=(b < N // n // 2) if predicated else None)
                Z[b * n:b * n + n] = T.reinterpret(w, VECTOR[bits])
    return k


@pytest.mark.parametrize("bits", [32, 64, 128, 256])
@pytest.mark.parametrize("predicated", [False, True])
def test_global_word_loads_and_stores_on_cpu(rng, bits, predicated):
    N = 256
    x = rng.standard_normal(N).astype(np.float32)
    y = np.full(N, -1.0, np.float32)
    z = np.full(N, -1.0, np.float32)
    tilemlir.compile(copy_kernel(N, bits, predicated), target="cpu")(x, y, z)
    half = N // 2 if predicated else N
    np.testing.assert_array_equal(y[:half], x[:half])
    np.testing.assert_array_equal(y[half:], -1.0)
    # A load whose predicate is false gives zeros.
    np.testing.assert_array_equal(z, np.where(np.arange(N) < half, x, 0.0))


def test_shared_word_stores_and_loads_and_halves_on_cpu(rng):
    N = 64

    @T.prim_func
    def k(X: T.Tensor((N,), "float16"), Y: T.Tensor((N,), "float16"),
          B: T.Tensor((N // 2,), "int32")):
        with T.Kernel(N // 8, threads=32) as b:
            S = T.alloc_shared((N,), "float16")
            T.sts128(S[b * 8:b * 8 + 8], T.ldg128(X[b * 8:b * 8 + 8]))
            T.stg128(Y[b * 8:b * 8 + 8], T.lds128(S[b * 8:b * 8 + 8]))
            for j in T.serial(4):
                B[b * 4 + j] = T.reinterpret(T.lds32(S[b * 8 + 2 * j:b * 8 + 2 * j + 2]), T.int32)

    x = rng.standard_normal(N).astype(np.float16)
    y, bits = tilemlir.compile(k, out_idx=[1, 2], target="cpu")(x)
    np.testing.assert_array_equal(y, x)
    np.testing.assert_array_equal(bits, x.view(np.int32))


def test_words_outside_the_tensor_read_zero_and_are_not_written():
    """The last block's 4 words hang over the end of 250 elements: the
    load reads zeros and the store writes nothing."""
    N = 250

    @T.prim_func
    def k(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 4), threads=32) as b:
            w = T.ldg128(X[b * 4:b * 4 + 4])
            T.stg128(Y[b * 4:b * 4 + 4], w)

    x = np.arange(N, dtype=np.float32)
    y = np.full(N, -1.0, np.float32)
    tilemlir.compile(k, target="cpu")(x, y)
    np.testing.assert_array_equal(y[:248], x[:248])
    np.testing.assert_array_equal(y[248:], -1.0)


def test_misaligned_words_move_element_by_element():
    """Words that start one element after a 16-byte boundary: the accesses
    of element alignment move them (TileLang's vector access would fault)."""
    N = 64

    @T.prim_func
    def k(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(N // 4 - 1, threads=32) as b:
            w = T.ldg128(X[b * 4 + 1:b * 4 + 5])
            T.stg128(Y[b * 4 + 1:b * 4 + 5], w)

    x = np.arange(N, dtype=np.float32)
    y = np.zeros(N, np.float32)
    tilemlir.compile(k, target="cpu")(x, y)
    np.testing.assert_array_equal(y[1:N - 3], x[1:N - 3])
    assert y[0] == 0 and (y[N - 3:] == 0).all()


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("bits,vec", [(64, "v2"), (128, "v4"), (256, "v4")])
def test_ptx_moves_the_words_as_one_vector(arch, bits, vec):
    src = tilemlir.compile(copy_kernel(256, bits, True), target=f"cuda -arch={arch}"
                           ).get_kernel_source()
    assert re.search(rf"ld\.global(\.nc)?\.{vec}\.[bfu]32", src), src
    assert re.search(rf"st\.global\.{vec}\.[bfu]32", src), src


def test_word_load_of_a_shared_buffer_is_a_located_error():
    @T.prim_func
    def k(Y: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32):
            S = T.alloc_shared((64,), "float32")
            w = T.ldg32(S[0])  # <scope>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "scope", "T.ldg32 moves the words of global tensors", "'S' is a shared",
                   source=THIS_FILE)


def test_word_region_of_another_size_is_a_located_error():
    @T.prim_func
    def k(X: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32):
            w = T.ldg128(X[0:2])  # <size>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "size", "T.ldg128 moves 128 bits, 4 float32 elements", "the region is 2",
                   source=THIS_FILE)


def test_word_store_of_a_value_of_another_width_is_a_located_error():
    @T.prim_func
    def k(X: T.Tensor((64,), "float32"), Y: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32):
            w = T.ldg64(X[0:2])
            T.stg128(Y[0:4], w)  # <width>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "width", "64-bit vector<2xi32> value as vector<4xi32> (128 bits)",
                   source=THIS_FILE)
