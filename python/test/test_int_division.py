"""TileLang's integer division: `//` and `%` on kernel integers are TVM's
floordiv / floormod (the quotient rounds down and the remainder takes the
divisor's sign, as in Python); T.truncdiv / T.truncmod round toward zero,
as C does. Negative operands tell them apart."""

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T

N = 96


def _operands(seed=3):
    rng = np.random.default_rng(seed)
    a = rng.integers(-50, 50, N).astype(np.int32)
    b = (rng.integers(1, 9, N) * rng.choice([-1, 1], N)).astype(np.int32)
    return a, b


def _trunc(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) == (b < 0), q, -q).astype(np.int32)


def _run(func, *arrays):
    kernel = tilemlir.compile(func, target="cpu")
    outs = [np.zeros(N, np.int32) for _ in range(4)]
    kernel(*arrays, *outs)
    return outs


def test_operators_are_floor_division():
    @T.prim_func
    def ops(A: T.Tensor((N,), "int32"), B: T.Tensor((N,), "int32"),
            Q: T.Tensor((N,), "int32"), R: T.Tensor((N,), "int32"),
            FQ: T.Tensor((N,), "int32"), FR: T.Tensor((N,), "int32")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(N):
                Q[i] = A[i] // B[i]
                R[i] = A[i] % B[i]
                FQ[i] = T.floordiv(A[i], B[i])
                FR[i] = T.floormod(A[i], B[i])

    a, b = _operands()
    q, r, fq, fr = _run(ops, a, b)
    np.testing.assert_array_equal(q, np.floor_divide(a, b))
    np.testing.assert_array_equal(r, np.mod(a, b))
    np.testing.assert_array_equal(fq, np.floor_divide(a, b))
    np.testing.assert_array_equal(fr, np.mod(a, b))


def test_truncating_division():
    @T.prim_func
    def ops(A: T.Tensor((N,), "int32"), B: T.Tensor((N,), "int32"),
            Q: T.Tensor((N,), "int32"), R: T.Tensor((N,), "int32"),
            Q2: T.Tensor((N,), "int32"), R2: T.Tensor((N,), "int32")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(N):
                Q[i] = T.truncdiv(A[i], B[i])
                R[i] = T.truncmod(A[i], B[i])
                Q2[i] = T.truncdiv(A[i], -3)
                R2[i] = T.truncmod(A[i], 4)

    a, b = _operands(5)
    q, r, q2, r2 = _run(ops, a, b)
    np.testing.assert_array_equal(q, _trunc(a, b))
    np.testing.assert_array_equal(r, a - _trunc(a, b) * b)
    np.testing.assert_array_equal(q2, _trunc(a, np.int32(-3)))
    np.testing.assert_array_equal(r2, np.fmod(a, 4))


@pytest.mark.parametrize("d", [8, 6, -4, -7])
def test_constant_divisors(d):
    # Powers of two take the low bits; other divisors fix the remainder's sign.
    @T.prim_func
    def ops(A: T.Tensor((N,), "int32"), B: T.Tensor((N,), "int32"),
            Q: T.Tensor((N,), "int32"), R: T.Tensor((N,), "int32"),
            X: T.Tensor((N,), "int32"), Y: T.Tensor((N,), "int32")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(N):
                Q[i] = A[i] // d
                R[i] = A[i] % d
                X[i] = (i - 40) % d  # an index expression
                Y[i] = T.floormod(i - 40, d) + B[i] * 0

    a, b = _operands(7)
    q, r, x, y = _run(ops, a, b)
    idx = np.arange(N) - 40
    np.testing.assert_array_equal(q, np.floor_divide(a, d))
    np.testing.assert_array_equal(r, np.mod(a, d))
    np.testing.assert_array_equal(x, np.mod(idx, d))
    np.testing.assert_array_equal(y, np.mod(idx, d))


def test_float_remainder_takes_the_divisor_sign():
    @T.prim_func
    def fmod(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
             C: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(N):
                C[i] = A[i] % B[i]

    a, b = (x.astype(np.float32) for x in _operands(9))
    c = np.zeros(N, np.float32)
    tilemlir.compile(fmod, target="cpu")(a, b, c)
    np.testing.assert_allclose(c, np.mod(a, b), atol=1e-5)


def test_python_values_fold():
    assert T.floordiv(-7, 2) == -4 and T.floormod(-7, 2) == 1
    assert T.truncdiv(-7, 2) == -3 and T.truncmod(-7, 2) == -1
    assert T.truncdiv(7, -2) == -3 and T.truncmod(7, -2) == 1


def test_truncdiv_of_floats_is_an_error():
    @T.prim_func
    def bad(A: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(N):
                A[i] = T.truncdiv(A[i], 2.0)

    with pytest.raises(tilemlir.TileCompileError, match="T.truncdiv needs integer operands"):
        tilemlir.compile(bad, target="cpu")
