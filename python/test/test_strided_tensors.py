"""T.StridedTensor parameters: tensors whose rows are further apart than
their length (views such as a[:, :n]), with static or T.dynamic strides, in
TileLang's prim_func and current front ends; on the cpu target against
numpy, compiled for sm_90a, and the runtime's check of the strides."""

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T

M, N, LD = 40, 24, 64  # rows of N elements, LD apart


def doubled(strides):
    @T.prim_func
    def k(A: T.StridedTensor((M, N), strides, "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, 16), T.ceildiv(M, 16), threads=128) as (bx, by):
            s = T.alloc_shared((16, 16), "float32")
            T.copy(A[by * 16, bx * 16], s)
            for i, j in T.Parallel(16, 16):
                B[by * 16 + i, bx * 16 + j] = s[i, j] * 2

    return k


@pytest.mark.parametrize("strides", [(LD, 1), (T.dynamic("ld"), 1)])
def test_strided_parameter(rng, strides):
    a = rng.standard_normal((M, LD)).astype(np.float32)
    b = np.zeros((M, N), dtype=np.float32)
    kernel = tilemlir.compile(doubled(strides), target="cpu")
    kernel(a[:, :N], b)
    np.testing.assert_array_equal(b, 2 * a[:, :N])
    tilemlir.compile(doubled(strides), target="cuda -arch=sm_90a")


def test_strides_are_checked(rng):
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = np.zeros((M, N), dtype=np.float32)
    kernel = tilemlir.compile(doubled((LD, 1)), target="cpu")
    with pytest.raises(ValueError, match=r"must have strides \(64, 1\)"):
        kernel(a, b)


def test_strided_tensor_in_the_current_front_end(rng):
    @tilemlir.jit(target="cpu")
    def scaled(A):
        m, ld = T.dynamic("m"), T.dynamic("ld")
        A: T.StridedTensor[[m, N], [ld, 1], T.float32]
        B = T.empty((m, N), T.float32)
        with T.Kernel(T.ceildiv(m, 8), threads=32) as bx:
            for i, j in T.Parallel(8, N):
                if bx * 8 + i < m:
                    B[bx * 8 + i, j] = A[bx * 8 + i, j] + 1
        return B

    a = rng.standard_normal((M, LD)).astype(np.float32)
    np.testing.assert_array_equal(scaled(a[:, :N]), a[:, :N] + 1)


def test_strides_must_be_positive_integers():
    with pytest.raises(tilemlir.TileCompileError, match="strides must be positive"):
        T.StridedTensor((4, 4), (0, 1), "float32")
