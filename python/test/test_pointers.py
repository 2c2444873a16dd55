"""T.ptr and T.make_tensor: global tensors at an address, given as a
pointer parameter (a tensor, or its address as an integer) or read from a
table of addresses in memory; on the cpu target against numpy, compiled for
sm_90a, and their mistakes as located errors."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def scaled_copy(n):
    """out = 2 * the n floats at `src` (a T.ptr parameter), the tensor made
    before the kernel with a size from a scalar parameter."""
    @T.prim_func
    def k(src: T.ptr, out: T.Tensor((n,), "float32"), m: T.int32):
        S = T.make_tensor(src, (m,), "float32")
        with T.Kernel(T.ceildiv(n, 32), threads=32) as bx:
            for i in T.Parallel(32):
                if bx * 32 + i < m:
                    out[bx * 32 + i] = S[bx * 32 + i] * 2

    return k


@pytest.mark.parametrize("as_address", [False, True])
def test_pointer_parameter(rng, as_address):
    n = 70  # not a multiple of the 32-element tile
    src = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    kernel = tilemlir.compile(scaled_copy(n), target="cpu")
    kernel(src.ctypes.data if as_address else src, out, n)
    np.testing.assert_array_equal(out, 2 * src)


def test_pointer_table_gathers_rows(rng):
    """Block g copies the 2-d tensor whose address is table[g] (the tables of
    TileLang's grouped GEMMs)."""
    G, R, C = 3, 5, 12
    srcs = [rng.standard_normal((R, C)).astype(np.float32) for _ in range(G)]
    table = np.array([s.ctypes.data for s in srcs], dtype=np.int64)

    @T.prim_func
    def k(ptrs: T.Tensor((G,), T.ptr), out: T.Tensor((G, R, C), "float32")):
        with T.Kernel(G, threads=32) as g:
            X = T.make_tensor(ptrs[g], (R, C), "float32")
            tile = T.alloc_shared((8, 16), "float32")
            T.copy(X[0:8, 0:16], tile)  # hangs over both edges: reads pad
            T.copy(tile, out[g, 0:8, 0:16])

    out = np.zeros((G, R, C), dtype=np.float32)
    tilemlir.compile(k, target="cpu")(table, out)
    np.testing.assert_array_equal(out, np.stack(srcs))


def test_pointer_table_gemm(rng):
    """A GEMM whose A and B come from a table of group addresses."""
    G, M, N, K = 2, 32, 32, 32

    @T.prim_func
    def k(a_ptrs: T.Tensor((G,), T.ptr), b_ptrs: T.Tensor((G,), T.ptr),
          C: T.Tensor((G, M, N), "float32")):
        with T.Kernel(G, threads=128) as g:
            A = T.make_tensor(a_ptrs[g], (M, K), "float16")
            B = T.make_tensor(b_ptrs[g], (K, N), "float16")
            a_s = T.alloc_shared((M, K), "float16")
            b_s = T.alloc_shared((K, N), "float16")
            acc = T.alloc_fragment((M, N), "float32")
            T.clear(acc)
            T.copy(A[0, 0], a_s)
            T.copy(B[0, 0], b_s)
            T.gemm(a_s, b_s, acc)
            T.copy(acc, C[g, 0, 0])

    a = [rng.standard_normal((M, K)).astype(np.float16) for _ in range(G)]
    b = [rng.standard_normal((K, N)).astype(np.float16) for _ in range(G)]
    c = np.zeros((G, M, N), dtype=np.float32)
    table = lambda xs: np.array([x.ctypes.data for x in xs], dtype=np.int64)  # noqa: E731
    tilemlir.compile(k, target="cpu")(table(a), table(b), c)
    for g in range(G):
        np.testing.assert_allclose(c[g], a[g].astype(np.float32) @ b[g].astype(np.float32),
                                   rtol=1e-2, atol=1e-2)
    tilemlir.compile(k, target="cuda -arch=sm_90a")


def test_make_tensor_needs_an_address():
    @T.prim_func
    def k(A: T.Tensor((4,), "float32"), out: T.Tensor((4,), "float32")):
        with T.Kernel(1, threads=32):
            X = T.make_tensor(A, (4,), "float32")  # <not-an-address>
            out[0] = X[0]

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "not-an-address", "T.make_tensor needs an address", source=THIS_FILE)


def test_make_tensor_rejects_other_strides():
    @T.prim_func
    def k(ptrs: T.Tensor((1,), T.ptr), out: T.Tensor((4,), "float32")):
        with T.Kernel(1, threads=32):
            X = T.make_tensor(ptrs[0], (4, 4), "float32", strides=(8, 1))  # <strides>
            out[0] = X[0, 0]

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "strides", "row-major", source=THIS_FILE)


def test_make_tensor_ir():
    """The tensor made before T.Kernel is made at the start of its body,
    with the scalar size converted to an index."""
    text = scaled_copy(64).script()
    body = text[text.index("tile.kernel"):]
    assert "tile.make_tensor %src(" in body and ": memref<?xf32>" in body
