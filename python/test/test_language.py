"""TileLang-style kernels on the "cpu" target, checked against numpy."""

import re

import ml_dtypes
import numpy as np
import pytest

import tilemlir
import tilemlir.language as T

NP = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32}


def randn(rng, shape, dtype="float32"):
    return rng.standard_normal(shape).astype(NP.get(dtype, dtype))


def f64(x):
    return np.asarray(x).astype(np.float64)


# --------------------------------------------------------------------- GEMM

def gemm_func(M, N, K, bm, bn, bk, trans_A, trans_B, dtype, accum_dtype="float32"):
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_tile = (bk, bm) if trans_A else (bm, bk)
    B_tile = (bn, bk) if trans_B else (bk, bn)

    @T.prim_func
    def gemm(A: T.Tensor(A_shape, dtype), B: T.Tensor(B_shape, dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared(A_tile, dtype)
            B_s = T.alloc_shared(B_tile, dtype)
            C_l = T.alloc_fragment((bm, bn), accum_dtype)
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2):
                if trans_A:
                    T.copy(A[k * bk, by * bm], A_s)
                else:
                    T.copy(A[by * bm, k * bk], A_s)
                if trans_B:
                    T.copy(B[bx * bn, k * bk], B_s)
                else:
                    T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l, transpose_A=trans_A, transpose_B=trans_B)
            T.copy(C_l, C[by * bm, bx * bn])

    return gemm


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("trans_A,trans_B", [(False, False), (False, True), (True, False),
                                             (True, True)], ids=["nn", "nt", "tn", "tt"])
def test_gemm_transposes(rng, dtype, trans_A, trans_B):
    M, N, K = 67, 45, 50
    kernel = tilemlir.compile(gemm_func(M, N, K, 32, 32, 16, trans_A, trans_B, dtype),
                              out_idx=[-1], target="cpu")
    a = randn(rng, (K, M) if trans_A else (M, K), dtype)
    b = randn(rng, (N, K) if trans_B else (K, N), dtype)
    c = kernel(a, b)
    assert c.dtype == NP[dtype] and c.shape == (M, N)
    ref = (f64(a).T if trans_A else f64(a)) @ (f64(b).T if trans_B else f64(b))
    tol = {"float16": 1e-2, "bfloat16": 3e-2, "float32": 1e-4}[dtype]
    np.testing.assert_allclose(f64(c), ref, rtol=tol, atol=tol * 4)


def test_gemm_dtype_objects_match_strings(rng):
    """T.float16 / T.float32 objects and "float16" / "float" strings give the
    same kernel."""
    M, N, K = 33, 20, 24
    k_str = tilemlir.compile(gemm_func(M, N, K, 16, 16, 8, False, False, "float16", "float"),
                             out_idx=[-1])
    k_obj = tilemlir.compile(gemm_func(M, N, K, 16, 16, 8, False, False, T.float16, T.float32),
                             out_idx=[-1])
    assert k_str.ir == k_obj.ir
    a, b = randn(rng, (M, K), "float16"), randn(rng, (K, N), "float16")
    np.testing.assert_array_equal(k_str(a, b), k_obj(a, b))


def test_dtype_aliases():
    assert T.float == T.float32 and T.half == T.float16
    assert T.float16 == "float16" and T.bfloat16 == "bfloat16"
    assert tilemlir.language.dtypes.as_dtype("float") is T.float32
    assert tilemlir.language.dtypes.as_dtype(np.float16) is T.float16
    assert T.bfloat16.numpy == np.dtype(ml_dtypes.bfloat16)


# ------------------------------------------------------------------ softmax

def softmax_func(M, N, bm, dtype="float32"):
    @T.prim_func
    def softmax(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, bm), threads=64) as bx:
            x = T.alloc_fragment((bm, N), "float")
            row_max = T.alloc_fragment((bm,), "float")
            row_sum = T.alloc_fragment((bm,), "float")
            T.copy(X[bx * bm, 0], x)
            T.reduce_max(x, row_max, dim=1)
            for i, j in T.Parallel(bm, N):
                x[i, j] = T.exp(x[i, j] - row_max[i])
            T.reduce_sum(x, row_sum, dim=1)
            for i, j in T.Parallel(bm, N):
                x[i, j] = x[i, j] / row_sum[i]
            T.copy(x, Y[bx * bm, 0])

    return softmax


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_softmax(rng, dtype):
    M, N = 37, 48
    kernel = tilemlir.compile(softmax_func(M, N, 16, dtype), out_idx=[1])
    x = randn(rng, (M, N), dtype) * 3
    y = kernel(x.astype(NP[dtype]))
    e = np.exp(f64(x) - f64(x).max(1, keepdims=True))
    np.testing.assert_allclose(f64(y), e / e.sum(1, keepdims=True), rtol=2e-3, atol=1e-3)


# ------------------------------------------------------------------ reduces

REDUCES = {
    "sum": (T.reduce_sum, lambda a, d: a.sum(d)),
    "max": (T.reduce_max, lambda a, d: a.max(d)),
    "min": (T.reduce_min, lambda a, d: a.min(d)),
    "abssum": (T.reduce_abssum, lambda a, d: np.abs(a).sum(d)),
    "absmax": (T.reduce_absmax, lambda a, d: np.abs(a).max(d)),
}


def reduce_func(M, N, kind, dim):
    reduce_op = REDUCES[kind][0]
    out_len = N if dim % 2 == 0 else M

    @T.prim_func
    def reduce(A: T.Tensor((M, N), "float32"), Out: T.Tensor((out_len,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            a = T.alloc_fragment((M, N), "float32")
            r = T.alloc_fragment((out_len,), "float32")
            T.copy(A, a)
            reduce_op(a, r, dim=dim)
            T.copy(r, Out)

    return reduce


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("kind", list(REDUCES))
def test_reduce(rng, kind, dim):
    M, N = 12, 20
    kernel = tilemlir.compile(reduce_func(M, N, kind, dim), out_idx=[1])
    a = randn(rng, (M, N))
    np.testing.assert_allclose(kernel(a), REDUCES[kind][1](a, dim), rtol=1e-5, atol=1e-5)


def test_reduce_without_clear(rng):
    """clear=False folds the output's previous values into the reduction."""
    M, N = 8, 24

    @T.prim_func
    def running_max(A: T.Tensor((M, N), "float32"), Out: T.Tensor((M,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_fragment((M, N), "float32")
            m = T.alloc_fragment((M,), "float32")
            T.fill(m, 1.5)
            T.copy(A, a)
            T.reduce_max(a, m, dim=1, clear=False)
            T.copy(m, Out)

    kernel = tilemlir.compile(running_max, out_idx=[1])
    a = randn(rng, (M, N))
    np.testing.assert_allclose(kernel(a), np.maximum(a.max(1), 1.5))


# ----------------------------------------------------------- dynamic shapes

def test_dynamic_shape_one_kernel_two_sizes(rng):
    m = T.dynamic("m")
    bm, N = 32, 24

    @T.prim_func
    def axpb(A: T.Tensor((m, N), "float32"), B: T.Tensor((m, N), "float32")):
        with T.Kernel(T.ceildiv(m, bm)) as bx:
            a = T.alloc_fragment((bm, N), "float32")
            T.copy(A[bx * bm, 0], a)
            for i, j in T.Parallel(bm, N):
                a[i, j] = a[i, j] * 2.0 + 1.0
            T.copy(a, B[bx * bm, 0])

    kernel = tilemlir.compile(axpb, out_idx=[1])
    assert kernel.params[0]["shape"] == ["m", N]
    for rows in (70, 5, 32):
        a = randn(rng, (rows, N))
        b = kernel(a)
        assert b.shape == (rows, N)
        np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


def test_dynamic_gemm(rng):
    """A GEMM whose M is dynamic; K and N fixed."""
    m = T.dynamic("m")
    N, K, bm, bn, bk = 40, 24, 32, 32, 8

    @T.prim_func
    def gemm(A: T.Tensor((m, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((m, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(m, bm)) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    kernel = tilemlir.compile(gemm, out_idx=[2])
    b = randn(rng, (K, N), "float16")
    for rows in (45, 3):
        a = randn(rng, (rows, K), "float16")
        np.testing.assert_allclose(kernel(a, b), f64(a) @ f64(b), rtol=1e-3, atol=1e-3)


def test_dynamic_gemm_all_dims(rng):
    """M, N and K dynamic: the grid and the pipelined loop's bound are
    computed when the kernel runs."""
    m, n, k_ = T.dynamic("m"), T.dynamic("n"), T.dynamic("k")

    @T.prim_func
    def gemm(A: T.Tensor((m, k_), "float32"), B: T.Tensor((k_, n), "float32"),
             C: T.Tensor((m, n), "float32")):
        with T.Kernel(T.ceildiv(n, 16), T.ceildiv(m, 16)) as (bx, by):
            A_s = T.alloc_shared((16, 8), "float32")
            B_s = T.alloc_shared((8, 16), "float32")
            C_l = T.alloc_fragment((16, 16), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(k_, 8), num_stages=3):
                T.copy(A[by * 16, k * 8], A_s)
                T.copy(B[k * 8, bx * 16], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * 16, bx * 16])

    kernel = tilemlir.compile(gemm, out_idx=[2])
    for M, N, K in [(1, 1, 1), (17, 33, 9), (40, 5, 100)]:
        a, b = randn(rng, (M, K)), randn(rng, (K, N))
        np.testing.assert_allclose(kernel(a, b), a @ b, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ swizzle

def swizzle_gemm_func(M, N, K, bm, bn, bk, swizzle, panel=3, order="row"):
    @T.prim_func
    def gemm(A: T.Tensor((M, K), "float32"), B: T.Tensor((K, N), "float32"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float32")
            B_s = T.alloc_shared((bk, bn), "float32")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.use_swizzle(panel_size=panel, order=order, enable=swizzle)
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=1):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    return gemm


@pytest.mark.parametrize("panel,order", [(3, "row"), (2, "col"), (10, "row")])
def test_use_swizzle_same_result(rng, panel, order):
    # A 5 x 7 grid: the last panel is partial for every panel size used.
    M, N, K, bm, bn, bk = 7 * 16 - 5, 5 * 16 - 3, 24, 16, 16, 8
    plain = tilemlir.compile(swizzle_gemm_func(M, N, K, bm, bn, bk, False))
    swz = tilemlir.compile(swizzle_gemm_func(M, N, K, bm, bn, bk, True, panel, order))
    assert plain.ir != swz.ir
    a, b = randn(rng, (M, K)), randn(rng, (K, N))
    c1 = np.full((M, N), np.nan, np.float32)
    c2 = np.full((M, N), np.nan, np.float32)
    plain(a, b, c1)
    swz(a, b, c2)
    assert not np.isnan(c2).any(), "a block was skipped by the swizzle"
    np.testing.assert_array_equal(c1, c2)
    np.testing.assert_allclose(c2, a @ b, rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------- atomics

def test_atomic_add_tile_from_several_blocks(rng):
    M, N, bm = 100, 24, 16

    @T.prim_func
    def colsum(A: T.Tensor((M, N), "float32"), S: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(M, bm)) as bx:
            a = T.alloc_fragment((bm, N), "float32")
            part = T.alloc_fragment((N,), "float32")
            T.copy(A[bx * bm, 0], a)
            T.reduce_sum(a, part, dim=0)
            T.atomic_add(S[0], part)

    kernel = tilemlir.compile(colsum)
    a = randn(rng, (M, N))
    s = np.zeros(N, np.float32)
    kernel(a, s)
    np.testing.assert_allclose(s, a.sum(0), rtol=1e-4, atol=1e-4)
    kernel(a, s)  # atomics add to what is there
    np.testing.assert_allclose(s, 2 * a.sum(0), rtol=1e-4, atol=1e-4)


def test_atomic_add_scalar_from_several_blocks(rng):
    M, N = 9, 16

    @T.prim_func
    def total(A: T.Tensor((M, N), "int32"), S: T.Tensor((1,), "int32"),
              H: T.Tensor((4,), "float32")):
        with T.Kernel(M) as bx:
            for j in T.Parallel(N):
                T.atomic_add(S[0], A[bx, j])
                T.atomic_add(H[j % 4], 1.0)

    kernel = tilemlir.compile(total)
    a = rng.integers(-50, 50, size=(M, N)).astype(np.int32)
    s, h = np.zeros(1, np.int32), np.zeros(4, np.float32)
    kernel(a, s, h)
    assert s[0] == a.sum()
    np.testing.assert_array_equal(h, np.full(4, M * N / 4, np.float32))


def test_atomic_add_half_precision():
    @T.prim_func
    def count(A: T.Tensor((8,), "float16"), B: T.Tensor((8,), "bfloat16")):
        with T.Kernel(5) as bx:
            for i in T.Parallel(8):
                T.atomic_add(A[i], 1.0)
                T.atomic_add(B[i], 0.5)

    kernel = tilemlir.compile(count)
    a, b = np.zeros(8, np.float16), np.zeros(8, ml_dtypes.bfloat16)
    kernel(a, b)
    np.testing.assert_array_equal(a, np.full(8, 5.0, np.float16))
    np.testing.assert_array_equal(f64(b), np.full(8, 2.5))


# ------------------------------------------------------------- fill / clear

def test_fill_and_clear():
    M, N = 20, 12

    @T.prim_func
    def fill(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "int32"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(1) as bx:
            a = T.alloc_fragment((M, N), "float32")
            b = T.alloc_shared((M, N), "int32")
            c = T.alloc_fragment((M, N), "float16")
            T.fill(a, 3.25)
            T.fill(b, 7)
            T.fill(c, -1.5)
            T.copy(a, A)
            T.copy(b, B)
            T.copy(c, C)
            T.clear(c)
            T.copy(c[0:M // 2, :], C[0:M // 2, :])

    kernel = tilemlir.compile(fill, out_idx=[0, 1, 2])
    a, b, c = kernel()
    np.testing.assert_array_equal(a, np.full((M, N), 3.25, np.float32))
    np.testing.assert_array_equal(b, np.full((M, N), 7, np.int32))
    ref = np.full((M, N), -1.5, np.float16)
    ref[:M // 2] = 0
    np.testing.assert_array_equal(c, ref)


# ---------------------------------------------------------------- branches

def branch_func(M, N, use_abs):
    @T.prim_func
    def branch(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, 8)) as bx:
            a = T.alloc_fragment((8, N), "float32")
            T.copy(A[bx * 8, 0], a)
            for i, j in T.Parallel(8, N):
                if use_abs:  # a Python flag: chosen while translating
                    a[i, j] = T.abs(a[i, j])
                if a[i, j] > 0.5:  # a kernel value: scf.if
                    a[i, j] = a[i, j] * 10.0
                elif a[i, j] < -0.5:
                    a[i, j] = -1.0
                else:
                    a[i, j] = 0.0
            T.copy(a, B[bx * 8, 0])

    return branch


@pytest.mark.parametrize("use_abs", [False, True])
def test_if_on_kernel_values_and_python_flags(rng, use_abs):
    M, N = 19, 16
    func = branch_func(M, N, use_abs)
    kernel = tilemlir.compile(func, out_idx=[1])
    assert "scf.if" in kernel.ir
    assert ("math.absf" in kernel.ir) == use_abs
    a = randn(rng, (M, N))
    x = np.abs(a) if use_abs else a
    ref = np.where(x > 0.5, x * 10, np.where(x < -0.5, -1.0, 0.0))
    np.testing.assert_allclose(kernel(a), ref, rtol=1e-6)


def test_if_on_block_index(rng):
    """A branch on the block index, outside any parallel loop."""
    M, N = 4, 8

    @T.prim_func
    def by_block(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(M) as bx:
            row = T.alloc_fragment((1, N), "float32")
            T.copy(A[bx, 0], row)
            if bx % 2 == 0:
                for j in T.Parallel(N):
                    row[0, j] = row[0, j] + 100.0
            T.copy(row, B[bx, 0])

    kernel = tilemlir.compile(by_block, out_idx=[1])
    a = randn(rng, (M, N))
    ref = a.copy()
    ref[::2] += 100
    np.testing.assert_allclose(kernel(a), ref)


# ------------------------------------------------------------- serial loops

def test_serial_loops_with_local_accumulator(rng):
    M, N = 6, 13

    @T.prim_func
    def rowsum(A: T.Tensor((M, N), "float32"), S: T.Tensor((M, 2), "float32")):
        with T.Kernel(M) as bx:
            acc = T.alloc_local((2,), "float32")
            acc[0] = 0.0
            acc[1] = 0.0
            for k in T.serial(N):
                acc[0] += A[bx, k]
            for k in range(1, N, 2):  # odd columns
                acc[1] = acc[1] + A[bx, k] * 2.0
            S[bx, 0] = acc[0]
            S[bx, 1] = acc[1]

    kernel = tilemlir.compile(rowsum, out_idx=[1])
    assert "scf.for" in kernel.ir
    a = randn(rng, (M, N))
    s = kernel(a)
    np.testing.assert_allclose(s[:, 0], a.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s[:, 1], 2 * a[:, 1::2].sum(1), rtol=1e-5, atol=1e-5)


def test_serial_loop_dynamic_bound(rng):
    """A serial loop whose bound is a dynamic dimension."""
    n = T.dynamic("n")

    @T.prim_func
    def prefix(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(1) as bx:
            acc = T.alloc_local((1,), "float32")
            acc[0] = 0.0
            for i in T.serial(n):
                acc[0] += A[i]
                B[i] = acc[0]

    kernel = tilemlir.compile(prefix, out_idx=[1])
    for size in (1, 17):
        a = randn(rng, (size,))
        np.testing.assert_allclose(kernel(a), np.cumsum(a), rtol=1e-5, atol=1e-5)


# --------------------------------------------- augmented assign, buf.dtype

def test_augmented_assignment_and_buffer_dtype(rng):
    M, N = 16, 8

    @T.prim_func
    def scale_rows(A: T.Tensor((M, N), "float16"), s: T.Tensor((M,), "float32"),
                   B: T.Tensor((M, N), "float16")):
        with T.Kernel(1) as bx:
            acc = T.alloc_fragment((M, N), "float32")
            sc = T.alloc_fragment((M,), "float32")
            tmp = T.alloc_shared((M, N), A.dtype)  # buf.dtype: float16
            T.copy(A, acc)
            T.copy(s, sc)
            for i, j in T.Parallel(M, N):
                acc[i, j] *= sc[i]
            for i, j in T.Parallel(M, N):
                acc[i, j] += 1.0
                acc[i, j] -= 0.5
                acc[i, j] /= 2.0
            T.copy(acc, tmp)
            T.copy(tmp, B)

    kernel = tilemlir.compile(scale_rows, out_idx=[2])
    assert "memref<16x8xf16, #tile.scope<shared>>" in kernel.ir
    a, s = randn(rng, (M, N), "float16"), randn(rng, (M,))
    ref = (f64(a) * f64(s)[:, None] + 0.5) / 2
    np.testing.assert_allclose(f64(kernel(a, s)), ref, rtol=2e-3, atol=2e-3)


# ---------------------------------------------------------------- T.macro

def test_macro(rng):
    M, N = 8, 32

    @T.macro
    def clamp_into(src, dst, lo, hi):
        for i, j in T.Parallel(M, N):
            dst[i, j] = T.min(T.max(src[i, j], lo), hi)

    @T.macro
    def double(x):
        return x * 2.0

    @T.prim_func
    def clamp(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_fragment((M, N), "float32")
            b = T.alloc_fragment((M, N), "float32")
            T.copy(A, a)
            clamp_into(a, b, -0.5, 0.75)
            for i, j in T.Parallel(M, N):
                b[i, j] = double(b[i, j])
            T.copy(b, B)

    kernel = tilemlir.compile(clamp, out_idx=[1])
    a = randn(rng, (M, N))
    np.testing.assert_allclose(kernel(a), 2 * np.clip(a, -0.5, 0.75))


# ----------------------------------------------------- scalar intrinsics

def test_if_then_else_exp2_max_min_infinity(rng):
    M, N = 8, 16

    @T.prim_func
    def scalars(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"),
                C: T.Tensor((M, N), "float32"), D: T.Tensor((M, N), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_fragment((M, N), "float32")
            T.copy(A, a)
            for i, j in T.Parallel(M, N):
                B[i, j] = T.if_then_else(i >= j, a[i, j], -T.infinity("float32"))
                C[i, j] = T.exp2(a[i, j]) + T.max(a[i, j], 0.25) * T.min(a[i, j], -0.25)
                D[i, j] = T.max(T.infinity(T.float32), a[i, j]) * 0.0 + \
                    T.if_then_else(a[i, j] > 0, 1.0, 2.0)

    kernel = tilemlir.compile(scalars, out_idx=[1, 2, 3])
    a = randn(rng, (M, N))
    b, c, d = kernel(a)
    i, j = np.indices((M, N))
    np.testing.assert_array_equal(b, np.where(i >= j, a, -np.inf))
    np.testing.assert_allclose(c, np.exp2(a) + np.maximum(a, 0.25) * np.minimum(a, -0.25),
                               rtol=1e-5, atol=1e-6)
    assert np.isnan(d).all()  # inf * 0


def test_python_values_fold(rng):
    """T.* math on Python numbers is evaluated while translating."""
    N = 8
    factor = T.exp2(3) + T.max(1, 2) + T.ceildiv(10, 4)  # 8 + 2 + 3

    @T.prim_func
    def fold(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(N):
                B[i] = A[i] * factor + T.min(4, 5) * T.if_then_else(True, 1, 0)

    kernel = tilemlir.compile(fold, out_idx=[1])
    a = randn(rng, (N,))
    np.testing.assert_allclose(kernel(a), a * 13 + 4, rtol=1e-6)


# ------------------------------------------------------------ sliced copies

def test_copy_with_slices_into_shared(rng):
    B_, S, H, D, bm = 2, 40, 3, 16, 16

    @T.prim_func
    def permute(Q: T.Tensor((B_, S, H, D), "float16"), O: T.Tensor((B_, H, S, D), "float16")):
        with T.Kernel(T.ceildiv(S, bm), H, B_) as (bx, by, bz):
            q = T.alloc_shared((bm, D), "float16")
            T.copy(Q[bz, bx * bm:(bx + 1) * bm, by, :], q)
            T.copy(q, O[bz, by, bx * bm:(bx + 1) * bm, :])

    kernel = tilemlir.compile(permute, out_idx=[1])
    q = randn(rng, (B_, S, H, D), "float16")
    np.testing.assert_array_equal(kernel(q), q.transpose(0, 2, 1, 3))


def test_copy_partial_slices(rng):
    """Slices with constant extents at computed offsets, and an element-form
    destination."""
    M, N = 12, 20

    @T.prim_func
    def window(A: T.Tensor((M, N), "float32"), B: T.Tensor((4, 8), "float32")):
        with T.Kernel(1) as bx:
            s = T.alloc_shared((4, 8), "float32")
            off = 3
            T.copy(A[off:off + 4, 2 * off:2 * off + 8], s)
            T.copy(s, B[0, 0])

    kernel = tilemlir.compile(window, out_idx=[1])
    a = randn(rng, (M, N))
    np.testing.assert_array_equal(kernel(a), a[3:7, 6:14])


# ---------------------------------------------------------- jit / scalars

def test_jit_caches_per_arguments():
    calls = []

    @tilemlir.jit(out_idx=[-1], target="cpu")
    def add(N, value):
        calls.append((N, value))

        @T.prim_func
        def add_k(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
            with T.Kernel(1) as bx:
                for i in T.Parallel(N):
                    B[i] = A[i] + value

        return add_k

    k1 = add(8, 1.0)
    assert add(8, 1.0) is k1
    k2 = add(8, 2.0)
    assert k2 is not k1 and calls == [(8, 1.0), (8, 2.0)]
    a = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(k2(a), a + 2)


def test_scalar_parameter(rng):
    N = 10

    @T.prim_func
    def axpy(A: T.Tensor((N,), "float32"), alpha: T.float32, n: T.int32,
             B: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(N):
                B[i] = T.if_then_else(i < n, A[i] * alpha, 0.0)

    kernel = tilemlir.compile(axpy, out_idx=[-1])
    a = randn(rng, (N,))
    ref = np.where(np.arange(N) < 4, a * 2.5, 0)
    np.testing.assert_allclose(kernel(a, 2.5, 4), ref, rtol=1e-6)


# ------------------------------------------------------------ source forms

def test_source_with_column_0_comment_and_unindented_string(rng):
    """The translator reads the kernel's source as written: a comment at
    column 0 or a multi-line string does not upset it."""
    N = 8

    @T.prim_func
    def k(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        """A docstring
whose second line is not indented."""
        with T.Kernel(1) as bx:
#           T.fill(B, 2.0)  (commented out at column 0)
            for i in T.Parallel(N):
                B[i] = A[i] + 1.0

    kernel = tilemlir.compile(k, out_idx=[1])
    a = randn(rng, (N,))
    np.testing.assert_allclose(kernel(a), a + 1)


# ------------------------------------------------------------- sm_90a GEMM

def hopper_gemm(M, N, K, warp_specialize=True, dtype="float16", disable_tma=False,
                num_stages=3, shared_epilogue=False, cluster=None, panel=None):
    """C = A B in 128 x 128 tiles on two warpgroups. `shared_epilogue`: C
    goes through a shared tile (TileLang's Hopper epilogue); `cluster`:
    clusters of that many blocks, the grid rounded up to whole clusters;
    `panel`: T.use_swizzle."""
    cx, cy = cluster or (1, 1)
    gx = T.ceildiv(T.ceildiv(N, 128), cx) * cx
    gy = T.ceildiv(T.ceildiv(M, 128), cy) * cy

    @T.prim_func
    def gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(gx, gy, threads=256, cluster_dims=cluster) as (bx, by):
            A_s = T.alloc_shared((128, 64), dtype)
            B_s = T.alloc_shared((64, 128), dtype)
            C_l = T.alloc_fragment((128, 128), "float32")
            if panel:
                T.use_swizzle(panel_size=panel)
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, 64), num_stages=num_stages,
                                 warp_specialize=warp_specialize):
                T.copy(A[by * 128, k * 64], A_s)
                T.copy(B[k * 64, bx * 128], B_s)
                T.gemm(A_s, B_s, C_l)
            if shared_epilogue:
                C_s = T.alloc_shared((128, 128), "float16")
                T.copy(C_l, C_s)
                T.copy(C_s, C[by * 128, bx * 128])
            else:
                T.copy(C_l, C[by * 128, bx * 128], disable_tma=disable_tma)

    return gemm


def test_sm90a_gemm_bundle_has_tma_descriptors_and_a_producer(tmp_path, monkeypatch):
    # Compiling for sm_90a needs no GPU: the bundle lists the TMA descriptors
    # the launcher builds and launches a producer warpgroup.
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))
    k = tilemlir.compile(hopper_gemm(512, 512, 256), out_idx=[2], target="cuda -arch=sm_90a")
    import json
    meta = json.loads((k.bundle_dir / "bundle.json").read_text())
    tma = sorted((a for a in meta["kernel_args"] if a["kind"] == "tma"),
                 key=lambda a: a["param"])
    # A's and B's load boxes, and C's store box (C is written through it).
    assert tma == [{"kind": "tma", "param": 0, "box": [128, 64], "swizzle": 128},
                   {"kind": "tma", "param": 1, "box": [64, 64], "swizzle": 128},
                   {"kind": "tma", "param": 2, "box": [128, 64], "swizzle": 128,
                    "store": True}]
    assert meta["block"] == [384, 1, 1]
    ptx = k.get_kernel_source()
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in ptx
    assert "stmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta" in ptx
    # warp_specialize=False: the same pipeline in the kernel's own threads.
    k = tilemlir.compile(hopper_gemm(512, 512, 256, warp_specialize=False), out_idx=[2],
                         target="cuda -arch=sm_90a")
    meta = json.loads((k.bundle_dir / "bundle.json").read_text())
    assert meta["block"] == [256, 1, 1]
    assert "setmaxnreg" not in k.get_kernel_source()


def test_copy_disable_tma_keeps_the_store_from_tma(tmp_path, monkeypatch):
    # T.copy(..., disable_tma=True): C leaves with st.global, and no store
    # descriptor reaches the bundle.
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))
    k = tilemlir.compile(hopper_gemm(512, 512, 256, disable_tma=True), out_idx=[2],
                         target="cuda -arch=sm_90a")
    import json
    meta = json.loads((k.bundle_dir / "bundle.json").read_text())
    assert [a["param"] for a in meta["kernel_args"] if a["kind"] == "tma"] == [0, 1]
    ptx = k.get_kernel_source()
    assert "stmatrix" not in ptx and "st.global.v4.b32" in ptx


def test_gemm_epilogue_through_a_shared_tile(rng, tmp_path, monkeypatch):
    # On the CPU against numpy; on sm_90a the two copies are one TMA store.
    k = tilemlir.compile(hopper_gemm(200, 136, 72, shared_epilogue=True), out_idx=[2], target="cpu")
    a, b = randn(rng, (200, 72), "float16"), randn(rng, (72, 136), "float16")
    np.testing.assert_allclose(f64(k(a, b)), f64(a) @ f64(b), rtol=2e-2, atol=2e-1)
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))
    k = tilemlir.compile(hopper_gemm(512, 512, 256, shared_epilogue=True), out_idx=[2],
                         target="cuda -arch=sm_90a")
    ptx = k.get_kernel_source()
    assert "stmatrix" in ptx and "cp.async.bulk.tensor.2d.global.shared::cta" in ptx


def test_shared_epilogue_tile_takes_no_shared_memory_on_sm90a(tmp_path, monkeypatch):
    # 6 stages of 32 KiB and a 32 KiB C_shared: over sm_80's 163 KiB (it
    # stores through the tile), within sm_90a's 227 KiB (the tile is unused).
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))
    k = tilemlir.compile(hopper_gemm(1024, 1024, 1024, num_stages=6, shared_epilogue=True), out_idx=[2],
                         target="cuda -arch=sm_90a")
    import json
    assert json.loads((k.bundle_dir / "bundle.json").read_text())["shared_bytes"] <= 227 * 1024
    with pytest.raises(tilemlir.TileCompileError, match="bytes of shared memory; sm_80 allows"):
        tilemlir.compile(hopper_gemm(1024, 1024, 1024, num_stages=6, shared_epilogue=True), out_idx=[2],
                         target="cuda -arch=sm_80")


def test_copy_disable_tma_must_be_a_bool():
    with pytest.raises(tilemlir.TileCompileError, match="disable_tma must be True or False"):
        tilemlir.compile(hopper_gemm(128, 128, 64, disable_tma=1), target="cpu")


def test_pipelined_warp_specialize_must_be_a_bool():
    with pytest.raises(tilemlir.TileCompileError, match="warp_specialize must be True or False"):
        tilemlir.compile(hopper_gemm(128, 128, 64, warp_specialize="no"), target="cpu")


def test_warp_specialize_is_ignored_on_the_cpu(rng):
    k = tilemlir.compile(hopper_gemm(128, 128, 128, warp_specialize=False), out_idx=[2],
                         target="cpu")
    a, b = randn(rng, (128, 128), "float16"), randn(rng, (128, 128), "float16")
    c = k(a, b)
    np.testing.assert_allclose(f64(c), f64(a) @ f64(b), rtol=2e-2, atol=2e-1)


def test_sm90a_cluster_launch_in_the_bundle(tmp_path, monkeypatch):
    # T.Kernel(..., cluster_dims=...) reaches the launch: the bundle asks the
    # runtime for cuLaunchKernelEx with a cluster size.
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))

    @T.prim_func
    def scale(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32")):
        with T.Kernel(4, threads=64, cluster_dims=(2,)) as bx:
            for i in T.Parallel(64):
                B[bx * 64 + i] = A[bx * 64 + i] * 2.0

    import json
    k = tilemlir.compile(scale, out_idx=[1], target="cuda -arch=sm_90a")
    meta = json.loads((k.bundle_dir / "bundle.json").read_text())
    assert meta["cluster"] == [2, 1, 1]
    with pytest.raises(tilemlir.TileCompileError, match="cluster"):
        tilemlir.compile(scale, out_idx=[1], target="cuda -arch=sm_80")


@pytest.mark.parametrize("cluster", [(2, 1), (1, 2)])
def test_cluster_gemm_with_swizzle_on_the_cpu(rng, cluster):
    # T.use_swizzle in clusters walks whole clusters; every tile is still
    # computed once (the grid has a partial cluster's worth of tiles past
    # the edges, which store nothing).
    k = tilemlir.compile(hopper_gemm(200, 300, 136, cluster=cluster, panel=2), out_idx=[2],
                         target="cpu")
    a, b = randn(rng, (200, 136), "float16"), randn(rng, (136, 300), "float16")
    np.testing.assert_allclose(f64(k(a, b)), f64(a) @ f64(b), rtol=2e-2, atol=2e-1)


@pytest.mark.parametrize("cluster,shared,box", [((2, 1), 0, [64, 64]),
                                                ((1, 2), 1, [32, 64])])
def test_sm90a_cluster_gemm_multicasts_the_shared_operand(tmp_path, monkeypatch, cluster,
                                                          shared, box):
    # The blocks of a (2, 1) cluster share A's tile (same by), those of a
    # (1, 2) cluster B's: each loads half of its rows into both blocks.
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))
    k = tilemlir.compile(hopper_gemm(512, 512, 256, cluster=cluster, panel=4), out_idx=[2],
                         target="cuda -arch=sm_90a")
    import json
    meta = json.loads((k.bundle_dir / "bundle.json").read_text())
    assert meta["cluster"] == [*cluster, 1]
    loads = {a["param"]: a["box"] for a in meta["kernel_args"]
             if a["kind"] == "tma" and not a.get("store")}
    assert loads[shared] == box
    ptx = k.get_kernel_source()
    assert "multicast::cluster" in ptx and "mapa.shared::cluster" in ptx
    assert "barrier.cluster.wait" in ptx


def test_if_inside_a_parallel_loop_over_fragments(tmp_path, monkeypatch):
    # An `if` inside T.Parallel reading and writing fragments: numpy on the
    # CPU; on CUDA targets the nested accesses stay in registers (no shared
    # memory: the row maximum is shuffled, the row vector read in place).
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))

    @T.prim_func
    def shift(X: T.Tensor((64, 64), "float32"), Y: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            x = T.alloc_fragment((64, 64), "float32")
            m = T.alloc_fragment((64,), "float32")
            T.copy(X[0, 0], x)
            T.reduce_max(x, m, dim=1)
            for i, j in T.Parallel(64, 64):
                if x[i, j] > 0:
                    x[i, j] = x[i, j] - m[i]
            T.copy(x, Y[0, 0])

    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    out = tilemlir.compile(shift, out_idx=[1], target="cpu")(a)
    np.testing.assert_allclose(out, np.where(a > 0, a - a.max(1, keepdims=True), a))
    for arch in ("sm_80", "sm_90a"):
        ptx = tilemlir.compile(shift, out_idx=[1], target=f"cuda -arch={arch}").get_kernel_source()
        assert "shfl.sync.bfly" in ptx and "ld.shared" not in ptx


# ---------------------------------------------------------------- persistent

def persistent_gemm_func(M, N, K, bm, bn, bk, blocks, group, dtype="float32",
                         threads=128):
    @T.prim_func
    def gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(blocks, threads=threads) as block:
            A_s = T.alloc_shared((bm, bk), dtype)
            B_s = T.alloc_shared((bk, bn), dtype)
            C_l = T.alloc_fragment((bm, bn), "float32")
            for by, bx in T.Persistent([T.ceildiv(M, bm), T.ceildiv(N, bn)], blocks, block,
                                       group_size=group):
                T.clear(C_l)
                for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2):
                    T.copy(A[by * bm, k * bk], A_s)
                    T.copy(B[k * bk, bx * bn], B_s)
                    T.gemm(A_s, B_s, C_l)
                T.copy(C_l, C[by * bm, bx * bn])

    return gemm


@pytest.mark.parametrize("blocks,group", [(4, 3), (7, 8), (35, 2), (50, 1)])
def test_persistent_gemm_visits_every_tile_once(rng, blocks, group):
    # A 7 x 5 grid of tiles (partial edge tiles): fewer blocks than tiles, a
    # block count that divides nothing, exactly one tile per block, and more
    # blocks than tiles (the extra blocks have nothing to do).
    M, N, K, bm, bn, bk = 7 * 16 - 5, 5 * 16 - 3, 40, 16, 16, 8
    k = tilemlir.compile(persistent_gemm_func(M, N, K, bm, bn, bk, blocks, group))
    a, b = randn(rng, (M, K)), randn(rng, (K, N))
    c = np.full((M, N), np.nan, np.float32)
    k(a, b, c)
    assert not np.isnan(c).any(), "a tile was not visited"
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_persistent_one_dimensional_domain(rng):
    # Rows of 8, 13 tiles walked by 4 blocks: tiles block, block + 4, ...
    M, N, bm, blocks = 13 * 8 - 3, 16, 8, 4

    @T.prim_func
    def double(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(blocks) as block:
            x = T.alloc_fragment((bm, N), "float32")
            for t in T.Persistent([T.ceildiv(M, bm)], blocks, block):
                T.copy(X[t * bm, 0], x)
                for i, j in T.Parallel(bm, N):
                    x[i, j] = x[i, j] * 2.0
                T.copy(x, Y[t * bm, 0])

    k = tilemlir.compile(double)
    x = randn(rng, (M, N))
    y = np.full((M, N), np.nan, np.float32)
    k(x, y)
    np.testing.assert_array_equal(y, 2 * x)


def test_persistent_sm90a_gemm_shares_one_ring(tmp_path, monkeypatch):
    # On sm_90a the K loop inside T.Persistent keeps its producer warpgroup,
    # which walks the tiles too; the epilogue gets a shared buffer of its
    # own (3 stages of 48 KiB leave room for it).
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))
    import json
    prim = persistent_gemm_func(1000, 1100, 520, 128, 256, 64, 132, 8, dtype="float16",
                                threads=256)
    k = tilemlir.compile(prim, out_idx=[2], target="cuda -arch=sm_90a")
    meta = json.loads((k.bundle_dir / "bundle.json").read_text())
    assert meta["grid"] == ["132"]
    assert meta["block"] == [384, 1, 1]
    assert meta["shared_bytes"] > 2 * 49152 + 128 * (256 * 2 + 16)
    ptx = k.get_kernel_source()
    assert "setmaxnreg.dec.sync.aligned.u32" in ptx
    assert "cp.async.bulk.tensor.2d" in ptx


@pytest.mark.parametrize("header,message", [
    ("for bx in T.Persistent([4, 4], 2, block):",
     "T.Persistent has a 2-d domain but 1 loop variables"),
    ("for bx, by in T.Persistent(4, 2, block):",
     "T.Persistent's domain is a list of one or two extents"),
    ("for bx, by in T.Persistent([4, 4], 0, block):",
     "T.Persistent's wave_size must be positive, got 0"),
    ("for bx, by in T.Persistent([4, 4], 2):",
     "T.Persistent is missing its index"),
    ("for bx, by in T.Persistent([4, 4], 2, block, group_size=block):",
     "T.Persistent's group_size must be a compile-time integer"),
    ("for bx, by in T.Persistent([4, 4], 2, block, order=1):",
     "unexpected T.Persistent argument 'order'"),
])
def test_persistent_errors(tmp_path, header, message):
    src = f'''
import tilemlir.language as T

@T.prim_func
def k(A: T.Tensor((64, 64), "float32")):
    with T.Kernel(2) as block:
        {header}
            A[0, 0] = 1.0
'''
    path = tmp_path / "kernel.py"
    path.write_text(src)
    import importlib.util
    spec = importlib.util.spec_from_file_location("persistent_kernel", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(tilemlir.TileCompileError, match=re.escape(message)) as e:
        tilemlir.compile(mod.k)
    assert f"{path}:7" in str(e.value)


# ---------------------------------------------------- constants and casts

CONSTANTS = [1e-05, -1e+30, 1e+300, 5e-324, 0.1, -0.0, 3.0, 65504.0, 448.0, 1e-3,
             float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "float8_e5m2"])
def test_float_constants_keep_their_bits(dtype):
    """Every constant reaches the kernel as the bits numpy rounds it to,
    whatever Python's repr of it looks like (1e-05 has no '.')."""
    n = len(CONSTANTS)

    @T.prim_func
    def k(A: T.Tensor((n,), dtype)):
        with T.Kernel(1) as bx:
            for i in T.unroll(1):
                pass
            A[0] = T.cast(CONSTANTS[0], dtype)
            A[1] = T.cast(CONSTANTS[1], dtype)
            A[2] = T.cast(CONSTANTS[2], dtype)
            A[3] = T.cast(CONSTANTS[3], dtype)
            A[4] = T.cast(CONSTANTS[4], dtype)
            A[5] = T.cast(CONSTANTS[5], dtype)
            A[6] = T.cast(CONSTANTS[6], dtype)
            A[7] = T.cast(CONSTANTS[7], dtype)
            A[8] = T.cast(CONSTANTS[8], dtype)
            A[9] = T.cast(CONSTANTS[9], dtype)
            A[10] = T.cast(CONSTANTS[10], dtype)
            A[11] = T.cast(CONSTANTS[11], dtype)
            A[12] = T.cast(CONSTANTS[12], dtype)

    npd = T.dtypes.as_dtype(dtype).numpy
    out = np.zeros(n, dtype=npd)
    tilemlir.compile(k, target="cpu")(out)
    with np.errstate(all="ignore"):
        want = np.array(CONSTANTS).astype(npd)
    assert out.view(np.uint8).tobytes() == want.view(np.uint8).tobytes(), (out, want)


def test_float8_e4m3_and_integer_constants_at_their_limits():
    @T.prim_func
    def k(F: T.Tensor((4,), "float8_e4m3"), I: T.Tensor((3,), "int64"),
          U: T.Tensor((2,), "uint8")):
        with T.Kernel(1) as bx:
            F[0] = T.float8_e4m3(448.0)
            F[1] = T.float8_e4m3(-1e-05)
            F[2] = T.float8_e4m3(float("nan"))
            F[3] = T.float8_e4m3(2e-3)
            I[0] = T.int64(2 ** 63 - 1)
            I[1] = T.int64(-2 ** 63)
            I[2] = T.int64(-1)
            U[0] = T.uint8(255)
            U[1] = T.uint8(128)

    f = np.zeros(4, ml_dtypes.float8_e4m3fn)
    i = np.zeros(3, np.int64)
    u = np.zeros(2, np.uint8)
    tilemlir.compile(k, target="cpu")(f, i, u)
    want = np.array([448.0, -1e-05, float("nan"), 2e-3]).astype(ml_dtypes.float8_e4m3fn)
    assert f.view(np.uint8).tolist() == want.view(np.uint8).tolist()
    assert i.tolist() == [2 ** 63 - 1, -2 ** 63, -1]
    assert u.tolist() == [255, 128]


def test_copy_pad_value_with_an_exponent(rng):
    """A pad value prints like any other constant (1e-05 has no '.')."""
    @T.prim_func
    def k(A: T.Tensor((10,), "float32"), B: T.Tensor((16,), "float32")):
        with T.Kernel(1) as bx:
            s = T.alloc_shared((16,), "float32")
            T.copy(A[0:16], s, pad_value=1e-05)
            T.copy(s, B)

    a = randn(rng, (10,))
    b = np.zeros(16, np.float32)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_array_equal(b, np.concatenate([a, np.full(6, 1e-05, np.float32)]))


def layernorm_func(N, D, eps=1e-5):
    """TileLang's layer norm forward, with both spellings of the cast:
    T.Cast(dtype, value) (TIR's) and T.cast(value, dtype)."""
    acc = "float"

    @T.prim_func
    def layernorm(X: T.Tensor((N, D), "bfloat16"), Y: T.Tensor((N, D), "bfloat16")):
        with T.Kernel(N, threads=64) as bx:
            x_s = T.alloc_shared((1, D), "bfloat16")
            x = T.alloc_fragment((1, D), acc)
            sq = T.alloc_fragment((1, D), acc)
            total = T.alloc_fragment((1,), acc)
            total_sq = T.alloc_fragment((1,), acc)
            T.copy(X[bx, 0], x_s)
            for i, j in T.Parallel(1, D):
                x[i, j] = T.Cast(acc, x_s[i, j])
                sq[i, j] = x[i, j] * x[i, j]
            T.reduce_sum(x, total, dim=1)
            T.reduce_sum(sq, total_sq, dim=1)
            inv_d = T.float32(1.0) / T.Cast(acc, D)
            for i, j in T.Parallel(1, D):
                mean = total[i] * inv_d
                rstd = T.rsqrt(total_sq[i] * inv_d - mean * mean + T.Cast(acc, eps))
                x_s[i, j] = T.cast((x[i, j] - mean) * rstd, "bfloat16")
            T.copy(x_s, Y[bx, 0])

    return layernorm


def test_layernorm_with_tir_cast(rng):
    N, D = 4, 64
    x = randn(rng, (N, D), "bfloat16")
    y = np.zeros((N, D), ml_dtypes.bfloat16)
    tilemlir.compile(layernorm_func(N, D), target="cpu")(x, y)
    xf = f64(x)
    want = (xf - xf.mean(1, keepdims=True)) / np.sqrt(xf.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(f64(y), want, rtol=2e-2, atol=2e-2)
