"""TileLang's current front end: a @tilemlir.jit function whose body is the
kernel. Its shape constants come from T.const, its inputs are the
parameters annotated as tensors, its outputs the T.empty tensors it
returns; .compile(...) fixes the constants, a call with tensors binds them
from their shapes. All run on the CPU against numpy."""

import re

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError, _compiler
from tilemlir.jit.current import KernelFunction

from test_errors import assert_located


@tilemlir.jit(target="cpu")
def gemm(A, B, block_M, block_N, block_K, dtype=T.float16, accum_dtype=T.float32):
    M, N, K = T.const("M, N, K")  # <gemm-const>

    A: T.Tensor((M, K), dtype)  # <gemm-A>
    B: T.Tensor((K, N), dtype)  # <gemm-B>
    C = T.empty((M, N), dtype)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_s = T.alloc_shared((block_M, block_K), dtype)
        B_s = T.alloc_shared((block_K, block_N), dtype)
        acc = T.alloc_fragment((block_M, block_N), accum_dtype)
        T.clear(acc)
        for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
            T.copy(A[by * block_M, k * block_K], A_s)
            T.copy(B[k * block_K, bx * block_N], B_s)
            T.gemm(A_s, B_s, acc)
        T.copy(acc, C[by * block_M, bx * block_N])

    return C


def gemm_reference(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


@pytest.fixture
def compile_calls(monkeypatch):
    """Counts the C++ compiler's CPU builds."""
    calls = []
    real = _compiler.compile_cpu

    def counting(ir, path):
        calls.append(ir)
        return real(ir, path)

    monkeypatch.setattr(_compiler, "compile_cpu", counting)
    return calls


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def halves(rng, *shape):
    return rng.standard_normal(shape).astype(np.float16)


def test_compile_with_constants_runs_gemm_at_ragged_shapes(rng):
    kernel = gemm.compile(M=200, N=136, K=72, block_M=64, block_N=64, block_K=32)
    assert [p["name"] for p in kernel.params] == ["A", "B", "C"]
    assert [p["shape"] for p in kernel.params] == [[200, 72], [72, 136], [200, 136]]
    a, b = halves(rng, 200, 72), halves(rng, 72, 136)
    c = kernel(a, b)
    assert c.shape == (200, 136) and c.dtype == np.float16
    np.testing.assert_allclose(c.astype(np.float32), gemm_reference(a, b), rtol=1e-2, atol=5e-2)


def test_call_binds_constants_from_shapes_and_compiles_once_per_set(rng, compile_calls):
    a, b = halves(rng, 90, 40), halves(rng, 40, 70)
    c = gemm(a, b, 32, 32, 16)
    np.testing.assert_allclose(c.astype(np.float32), gemm_reference(a, b), rtol=1e-2, atol=5e-2)
    before = len(gemm.kernels)
    gemm(halves(rng, 90, 40), halves(rng, 40, 70), 32, 32, 16)  # same constants: no compile
    assert len(gemm.kernels) == before and len(compile_calls) == 1
    a2, b2 = halves(rng, 33, 40), halves(rng, 40, 70)  # M changes: one more kernel
    c2 = gemm(a2, b2, block_M=32, block_N=32, block_K=16)
    assert len(gemm.kernels) == before + 1 and len(compile_calls) == 2
    np.testing.assert_allclose(c2.astype(np.float32), gemm_reference(a2, b2), rtol=1e-2,
                               atol=5e-2)
    # .compile with the constants a call bound is the kernel that call made.
    assert gemm.compile(M=33, N=70, K=40, block_M=32, block_N=32, block_K=16) is \
        gemm.compile(block_K=16, block_N=32, block_M=32, K=40, N=70, M=33)
    assert len(compile_calls) == 2



def test_repeated_calls_translate_nothing_again(rng, monkeypatch):
    """A call with tensors of shapes seen before binds them without
    translating the function again (its probe is kept per parameter set)."""
    from tilemlir.jit import current
    gemm(halves(rng, 48, 40), halves(rng, 40, 24), 16, 16, 16)
    translations = []
    real = current.CurrentTranslator.translate

    def counting(self):
        translations.append(self.probing)
        return real(self)

    monkeypatch.setattr(current.CurrentTranslator, "translate", counting)
    a, b = halves(rng, 48, 40), halves(rng, 40, 24)
    c = gemm(a, b, 16, 16, 16)
    np.testing.assert_allclose(c.astype(np.float32), gemm_reference(a, b), rtol=1e-2, atol=5e-2)
    assert translations == []
    gemm(halves(rng, 48, 40), halves(rng, 40, 24), 16, 16, 32)  # a new block_K: one probe, one kernel
    assert translations == [True, False]

@tilemlir.jit(target="cpu")
def scaled_copy(X, factor, block):
    N = T.const("N")
    X: T.Tensor((N,), T.float32)
    Y = T.empty((N,), T.float32)
    with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
        for i in T.Parallel(block):
            if bx * block + i < N:
                Y[bx * block + i] = X[bx * block + i] * factor
    return Y


@pytest.fixture
def binds(monkeypatch):
    """The calls of scaled_copy that were bound in full (cache misses)."""
    calls = []
    real = KernelFunction.bind

    def counting(self, args, kwargs):
        calls.append((args, kwargs))
        return real(self, args, kwargs)

    monkeypatch.setattr(KernelFunction, "bind", counting)
    scaled_copy.calls.clear()
    return calls


def test_call_cache_serves_a_call_like_an_earlier_one(binds):
    x = np.arange(40, dtype=np.float32)
    np.testing.assert_allclose(scaled_copy(x, 2.0, 32), x * 2)
    assert len(binds) == 1
    # Other arrays of that shape and dtype, the same other values: the
    # kernel of the first call, nothing bound again; the new data is read.
    y = x + 1
    np.testing.assert_allclose(scaled_copy(y, 2.0, 32), y * 2)
    np.testing.assert_allclose(scaled_copy(y, 2.0, block=32), y * 2)
    np.testing.assert_allclose(scaled_copy(y, 2.0, block=32), y * 2)
    assert len(binds) == 2      # the keyword form is a call of its own
    # The tensor given by keyword is found by name on a hit.
    np.testing.assert_allclose(scaled_copy(factor=2.0, block=32, X=y), y * 2)
    np.testing.assert_allclose(scaled_copy(factor=2.0, block=32, X=x), x * 2)
    assert len(binds) == 3
    assert scaled_copy(x, 2.0, 32) is not scaled_copy(x, 2.0, 32)   # a new output each call


def test_call_cache_misses_when_what_the_call_depends_on_changes(binds):
    from tilemlir.tvm.target import Target
    x = np.arange(40, dtype=np.float32)
    scaled_copy(x, 2.0, 32)
    # Another shape binds N anew.
    x41 = np.arange(41, dtype=np.float32)
    np.testing.assert_allclose(scaled_copy(x41, 2.0, 32), x41 * 2)
    # Another scalar value, or the same value of another type (2 == 2.0).
    np.testing.assert_allclose(scaled_copy(x, 3.0, 32), x * 3)
    np.testing.assert_allclose(scaled_copy(x, 2, 32), x * 2)
    np.testing.assert_allclose(scaled_copy(x, 2.0, 16), x * 2)
    assert len(binds) == 5
    # Another enclosing target, which picks the target of "auto".
    auto = KernelFunction(scaled_copy.fn, "auto", scaled_copy.options)
    key = auto._call_key((x, 2.0, 32), {})
    with Target("llvm"):
        assert auto._call_key((x, 2.0, 32), {}) not in (key, None)
    assert auto._call_key((x, 2.0, 32), {}) == key
    # Another dtype: the kernel refuses it, on the first call and on the
    # hit after it.
    for _ in range(2):
        with pytest.raises(TypeError, match="'X' must have dtype float32"):
            scaled_copy(x.astype(np.float64), 2.0, 32)
    assert len(binds) == 6
    # Values the key cannot hold as they are (a list) are bound every time.
    assert scaled_copy._call_key((x, [2.0], 32), {}) is None
    assert scaled_copy._call_key((x, 2.0, 32), {}) != scaled_copy._call_key((x, 2.0, 32.0), {})


def test_call_cache_miss_is_checked_and_located(rng):
    a, b = halves(rng, 64, 40), halves(rng, 40, 32)
    gemm(a, b, 32, 32, 16)
    gemm(a, b, 32, 32, 16)
    with pytest.raises(TileCompileError) as e:
        gemm(a, halves(rng, 40), 32, 32, 16)
    assert_located_here(e, "gemm-B", "tensor 'B' is annotated with 2 dimensions", "shape (40,)")
    with pytest.raises(TileCompileError) as e:
        gemm(a, halves(rng, 48, 32), 32, 32, 16)
    assert_located_here(e, "gemm-B", "constant 'K' is 40 from A's dimension 1")
    with pytest.raises(TileCompileError) as e:
        gemm(a, 32, 32, 16)  # <cached-one-tensor>
    assert_located_here(e, "cached-one-tensor", "gemm takes 2 tensors (A, B); the call passes 1")


def make_scale():
    @tilemlir.jit(target="cpu")
    def scale(X, factor):
        N = T.const("N")
        X: T.Tensor((N,), T.float32)
        Y = T.empty((N,), T.float32)
        with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
            for i in T.Parallel(32):
                if bx * 32 + i < N:
                    Y[bx * 32 + i] = X[bx * 32 + i] * factor
        return Y
    return scale


def test_disk_cache_serves_a_new_jit_function(fresh_cache, compile_calls):
    x = np.arange(50, dtype=np.float32)
    first = make_scale()
    np.testing.assert_allclose(first(x, 3.0), x * 3.0)
    second = make_scale()  # nothing in memory: the disk cache has it
    np.testing.assert_allclose(second(x, 3.0), x * 3.0)
    assert len(compile_calls) == 1
    assert first.compile(N=50, factor=3.0).bundle_dir == second.compile(N=50, factor=3.0).bundle_dir
    np.testing.assert_allclose(second(x[:7], 3.0), x[:7] * 3.0)
    assert len(compile_calls) == 2


@tilemlir.jit(target="cpu")
def sum_and_diff(X, Y):
    R, S = T.const("R S")
    X: T.Tensor[(R, S), "float32"]
    Y: T.Tensor[[R, S], T.float32]
    total = T.empty(R, S, dtype=T.float32)
    diff = T.empty((R, S), dtype="float32")
    with T.Kernel(R, threads=32) as r:
        for s in T.serial(S):
            total[r, s] = X[r, s] + Y[r, s]
            diff[r, s] = X[r, s] - Y[r, s]
    return diff, total


def test_several_outputs_subscript_annotations_and_empty_forms(rng):
    x = rng.standard_normal((5, 9)).astype(np.float32)
    y = rng.standard_normal((5, 9)).astype(np.float32)
    diff, total = sum_and_diff(x, y)  # in the order returned
    np.testing.assert_allclose(diff, x - y, rtol=1e-6)
    np.testing.assert_allclose(total, x + y, rtol=1e-6)
    kernel = sum_and_diff.compile(R=5, S=9)
    assert [p["name"] for p in kernel.params] == ["X", "Y", "diff", "total"]
    assert "memref<5x9xf32>" in kernel.ir


@tilemlir.jit(target="cpu")
def add_bias(X: T.Tensor((4, 16), "float32"), bias):
    Z = T.empty((4, 16), "float32")
    with T.Kernel(4, threads=16) as bx:
        for j in T.Parallel(16):
            Z[bx, j] = X[bx, j] + bias
    return Z


def test_signature_annotation_and_no_constants():
    x = np.ones((4, 16), dtype=np.float32)
    np.testing.assert_allclose(add_bias(x, 2.5), x + 2.5)
    np.testing.assert_allclose(add_bias.compile(bias=1.0)(x), x + 1.0)


@tilemlir.jit(target="cpu")
def accumulate_pairs(X, Acc):
    N = T.const("N")
    X: T.Tensor((N * 2,), T.float32)
    Acc: T.Tensor((N,), T.float32)
    with T.Kernel(N, threads=32) as i:
        Acc[i] = Acc[i] + X[2 * i] + X[2 * i + 1]


def test_kernel_writing_its_inputs_returns_nothing_and_derived_dims_are_checked():
    x = np.arange(10, dtype=np.float32)
    acc = np.ones(5, dtype=np.float32)
    # N comes from Acc; X's size is an expression of it, checked at launch.
    assert accumulate_pairs(x, acc) is None
    np.testing.assert_allclose(acc, 1 + x[0::2] + x[1::2])
    with pytest.raises(ValueError, match="X"):
        accumulate_pairs(np.zeros(9, np.float32), acc)


@T.macro
def twice_into(X, Y):
    rows, cols = X.shape
    with T.Kernel(T.ceildiv(rows, 8), threads=32) as b:
        for i, j in T.Parallel(8, cols):
            if b * 8 + i < rows:
                Y[b * 8 + i, j] = X[b * 8 + i, j] * 2.0


@T.macro
def twice(X):
    rows, cols = X.shape
    Y = T.empty(rows, cols, dtype=X.dtype)
    twice_into(X, Y)
    return Y


@tilemlir.jit(target="cpu")
def twice_dynamic_rows(X):
    R = T.dynamic("R")
    C = T.const("C")
    X: T.Tensor[[R, C], T.float32]
    return twice(X)


@tilemlir.jit(target="cpu")
def twice_fixed(X: T.Tensor[[16, 4], T.float32], Y: T.Tensor[[16, 4], T.float32]):
    twice_into(X, Y)


def test_kernel_in_a_macro_with_dynamic_rows_compiles_once_per_constant(rng):
    x = rng.standard_normal((20, 4)).astype(np.float32)
    np.testing.assert_allclose(twice_dynamic_rows(x), 2 * x)
    np.testing.assert_allclose(twice_dynamic_rows(x[:13].copy()), 2 * x[:13])
    assert len(twice_dynamic_rows.kernels) == 1  # R is dynamic: one kernel for all rows
    np.testing.assert_allclose(twice_dynamic_rows(x[:, :3].copy()), 2 * x[:, :3])
    assert len(twice_dynamic_rows.kernels) == 2  # C is a constant
    ir = twice_dynamic_rows.get_tir(T.Tensor((7, 5), "float32"))
    assert "memref<?x5xf32>" in ir and "memref.dim" in ir


def test_kernel_with_signature_tensors_only():
    x = np.arange(64, dtype=np.float32).reshape(16, 4)
    y = np.zeros_like(x)
    assert twice_fixed(x, y) is None
    np.testing.assert_allclose(y, 2 * x)


@tilemlir.jit(target="cpu")
def iota(n):
    Out = T.empty((n,), T.int32)
    with T.Kernel(1, threads=32) as b:
        for i in T.serial(n):
            Out[i] = i + b
    return Out


def test_kernel_without_inputs():
    np.testing.assert_array_equal(iota(5), np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(iota.compile(n=3)(), np.arange(3, dtype=np.int32))


def test_prim_func_factories_keep_working_and_have_compile():
    @tilemlir.jit(out_idx=[-1], target="cpu")
    def factory(N):
        @T.prim_func
        def k(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
            with T.Kernel(1, threads=32) as bx:
                for i in T.Parallel(N):
                    B[i] = A[i] * 2.0
        return k

    a = np.arange(32, dtype=np.float32)
    assert factory.compile(32) is factory(32)
    np.testing.assert_allclose(factory(32)(a), a * 2.0)


def test_factory_calling_numpy_empty_is_still_a_factory():
    @tilemlir.jit(out_idx=[-1], target="cpu")
    def factory(N):
        offsets = np.empty(N)  # numpy's empty, not T.empty
        offsets.fill(1.0)
        bias = float(offsets[0])

        @T.prim_func
        def k(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
            with T.Kernel(1, threads=32) as bx:
                for i in T.Parallel(N):
                    B[i] = A[i] + bias
        return k

    assert not isinstance(factory, KernelFunction)
    a = np.arange(8, dtype=np.float32)
    np.testing.assert_allclose(factory(8)(a), a + 1.0)


def gemm_prim_func(M, N, K, block_M, block_N, block_K, dtype=T.float16, accum_dtype=T.float32):
    @T.prim_func
    def gemm(A: T.Tensor[(M, K), dtype], B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), dtype)
            B_s = T.alloc_shared((block_K, block_N), dtype)
            acc = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, C[by * block_M, bx * block_N])
    return gemm


def test_same_tile_ir_as_the_prim_func_form():
    def strip(ir):
        return re.sub(r' ?loc\("(?:[^"\\]|\\.)*":\d+:\d+\)', "", ir)

    current = gemm.get_tir(M=256, N=192, K=96, block_M=64, block_N=64, block_K=32)
    prim = gemm_prim_func(256, 192, 96, 64, 64, 32).script()
    assert strip(current) == strip(prim)


def test_constant_given_in_a_call_is_checked_against_shapes(rng):
    with pytest.raises(TileCompileError) as e:
        gemm(halves(rng, 64, 40), halves(rng, 40, 32), 32, 32, 16, M=60)
    assert_located_here(e, "gemm-A", "constant 'M' is 60 from the value passed",
                        "dimension 0 of 'A' is 64")


# ------------------------------------------------------------------ errors

@tilemlir.jit(target="cpu")
def with_unbindable(X):
    N, S = T.const("N, S")  # <unbindable>
    X: T.Tensor((N,), T.float32)
    Y = T.empty((N,), T.float32)
    with T.Kernel(1, threads=32) as bx:
        for i in T.serial(N):
            Y[i] = X[i] * S
    return Y


def test_constant_no_tensor_fixes_is_located():
    with pytest.raises(TileCompileError) as e:
        with_unbindable(np.ones(8, np.float32))
    assert_located_here(e, "unbindable", "constant 'S' cannot be bound",
                        "with_unbindable.compile(S=...)")
    # Given in the call or to .compile, it is fine.
    np.testing.assert_allclose(with_unbindable(np.ones(8, np.float32), S=3), np.full(8, 3.0))
    np.testing.assert_allclose(with_unbindable.compile(N=4, S=2)(np.ones(4, np.float32)),
                               np.full(4, 2.0))


def test_constant_missing_from_compile_is_located():
    with pytest.raises(TileCompileError) as e:
        gemm.compile(M=64, N=64, block_M=32, block_N=32, block_K=16)
    assert_located_here(e, "gemm-const", "constant 'K' has no value", "compile(K=...)")


def test_shape_mismatch_between_tensors_sharing_a_constant(rng):
    with pytest.raises(TileCompileError) as e:
        gemm(halves(rng, 64, 40), halves(rng, 48, 32), 32, 32, 16)
    assert_located_here(e, "gemm-B", "constant 'K' is 40 from A's dimension 1",
                        "dimension 0 of 'B' is 48")


def test_bad_constant_values_are_located():
    with pytest.raises(TileCompileError) as e:
        gemm.compile(M=1.5, N=64, K=64, block_M=32, block_N=32, block_K=16)
    assert_located_here(e, "gemm-const", "constant 'M' is given 1.5; shape constants are "
                        "integers")
    with pytest.raises(TileCompileError) as e:
        gemm.compile(M=64, N=64, K=0, block_M=32, block_N=32, block_K=16)
    assert_located_here(e, "gemm-A", "shape entries must be positive, got 0")


def test_rank_mismatch_is_located(rng):
    with pytest.raises(TileCompileError) as e:
        gemm(halves(rng, 64, 40), halves(rng, 40), 32, 32, 16)
    assert_located_here(e, "gemm-B", "tensor 'B' is annotated with 2 dimensions",
                        "shape (40,)")


def test_wrong_number_of_tensors_is_located_at_the_call(rng):
    a = halves(rng, 64, 40)
    with pytest.raises(TileCompileError) as e:
        gemm(a, 32, 32, 16)  # <one-tensor>
    assert_located_here(e, "one-tensor", "gemm takes 2 tensors (A, B); the call passes 1")
    with pytest.raises(TileCompileError) as e:
        gemm(a, a.T.copy(), a, 32, 32, 16)  # <three-tensors>
    assert_located_here(e, "three-tensors", "takes 2 tensors (A, B); the call passes 3")
    with pytest.raises(TileCompileError) as e:
        gemm(a, a.T.copy())  # <no-tile-sizes>
    assert_located_here(e, "no-tile-sizes", "parameter 'block_M' of gemm has no value")


def test_unknown_compile_argument_is_located():
    with pytest.raises(TileCompileError) as e:
        gemm.compile(M=64, N=64, K=64, L=3, block_M=32, block_N=32, block_K=16)  # <unknown>
    assert_located_here(e, "unknown", "'L' is neither a parameter of gemm nor a name")


def test_out_idx_on_a_kernel_function_is_located():
    with pytest.raises(TileCompileError) as e:
        @tilemlir.jit(out_idx=[-1])  # <out-idx>
        def k(X):
            X: T.Tensor((4,), T.float32)
            with T.Kernel(1) as bx:
                X[bx] = 0.0
    assert "out_idx is for functions that return a T.prim_func" in str(e.value)
    assert e.value.filename == __file__


@tilemlir.jit(target="cpu")
def empty_in_kernel(X):
    X: T.Tensor((4,), T.float32)
    with T.Kernel(1) as bx:
        Y = T.empty((4,), T.float32)  # <empty-in-kernel>
        Y[bx] = X[bx]
    return Y


@tilemlir.jit(target="cpu")
def empty_not_returned(X):
    X: T.Tensor((4,), T.float32)
    Y = T.empty((4,), T.float32)  # <not-returned>
    Z = T.empty((4,), T.float32)
    with T.Kernel(1) as bx:
        Y[bx] = X[bx]
        Z[bx] = X[bx]
    return Z


@tilemlir.jit(target="cpu")
def annotates_a_local(X):
    X: T.Tensor((4,), T.float32)
    W: T.Tensor((4,), T.float32)  # <not-a-param>
    with T.Kernel(1) as bx:
        W[bx] = X[bx]
    return X


@tilemlir.jit(target="cpu")
def strided(X):
    X: T.StridedTensor((4,), (1, 1), T.float32)  # <strided>
    Y = T.empty((4,), T.float32)
    with T.Kernel(1) as bx:
        Y[bx] = X[bx]
    return Y


@pytest.mark.parametrize("fn, marker, fragment", [
    (empty_in_kernel, "empty-in-kernel", "T.empty makes an output of the function"),
    (empty_not_returned, "not-returned", "output 'Y' made with T.empty is not returned"),
    (annotates_a_local, "not-a-param", "'W' is annotated as a tensor but is not a parameter"),
    (strided, "strided", "T.StridedTensor has 1 dimensions but 2 strides"),
])
def test_kernel_function_mistakes_are_located(fn, marker, fragment):
    with pytest.raises(TileCompileError) as e:
        fn.compile()
    assert_located_here(e, marker, fragment)


def test_const_in_a_prim_func_is_an_error():
    @T.prim_func
    def k(A: T.Tensor((4,), "float32")):
        M = T.const("M")  # noqa: F841 # <const-in-prim>
        with T.Kernel(1) as bx:
            A[bx] = 0.0

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located_here(e, "const-in-prim", "T.const cannot be used here")


def assert_located_here(excinfo, marker, *fragments):
    return assert_located(excinfo, marker, *fragments, source=__file__)
