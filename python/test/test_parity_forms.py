"""TileLang forms of issue 14, on the cpu target against numpy (and compiled
for sm_90a where the GPU lowering differs): `.astype(dtype)`, T.copy of one
element, the `scope` argument of the allocations and T.alloc_buffer,
fragments read and written by scalar code, reductions into a wider dtype,
the batch= hint of reductions."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def cpu(func, *arrays, **kw):
    tilemlir.compile(func, target="cpu", **kw)(*arrays)
    return arrays


def test_astype_on_elements_and_expressions():
    N = 64

    @T.prim_func
    def conv(A: T.Tensor((N,), "float16"), I: T.Tensor((N,), "int32"),
             B: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(N):
                B[i] = A[i].astype("float32") * 2
                C[i] = (I[i] * 3).astype(T.float32) + T.float32(0.5)

    rng = np.random.default_rng(0)
    a = rng.standard_normal(N).astype(np.float16)
    ii = rng.integers(-9, 9, N).astype(np.int32)
    b, c = np.zeros(N, np.float32), np.zeros(N, np.float32)
    cpu(conv, a, ii, b, c)
    np.testing.assert_allclose(b, a.astype(np.float32) * 2)
    np.testing.assert_allclose(c, ii * 3 + 0.5)


def test_astype_of_a_region_is_an_error():
    @T.prim_func
    def bad(A: T.Tensor((8,), "float16"), B: T.Tensor((8,), "float32")):
        with T.Kernel(1, threads=32):
            B[0] = A[0:4].astype("float32")

    with pytest.raises(tilemlir.TileCompileError, match="astype converts one element"):
        tilemlir.compile(bad, target="cpu")


def test_copy_between_single_elements():
    N = 16

    @T.prim_func
    def pick(A: T.Tensor((N, N), "float32"), B: T.Tensor((N,), "float16")):
        with T.Kernel(N, threads=32) as bx:
            s = T.alloc_shared((N,), "float32")
            T.copy(A[bx, N - 1 - bx], s[bx % 4])
            T.copy(s[bx % 4], B[bx])

    a = np.arange(N * N, dtype=np.float32).reshape(N, N)
    b = np.zeros(N, np.float16)
    cpu(pick, a, b)
    np.testing.assert_array_equal(b, a[np.arange(N), N - 1 - np.arange(N)].astype(np.float16))


@pytest.mark.parametrize("alloc,scope", [("alloc_shared", "shared.dyn"),
                                         ("alloc_shared", "shared"),
                                         ("alloc_fragment", "local.fragment"),
                                         ("alloc_local", "local"),
                                         ("alloc_buffer", "shared"),
                                         ("alloc_buffer", "local.fragment"),
                                         ("alloc_buffer", "local")])
def test_allocation_scopes(alloc, scope):
    N = 32
    make = getattr(T, alloc)

    @T.prim_func
    def scaled(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32):
            buf = make((N,), "float32", scope=scope)
            for i in T.Parallel(N):
                buf[i] = A[i] * 3
            for i in T.Parallel(N):
                B[i] = buf[i] + 1

    ir = scaled.script() if hasattr(scaled, "script") else None
    want = {"shared.dyn": "shared", "shared": "shared", "local.fragment": "fragment",
            "local": "local"}[scope]
    if ir is not None:
        assert f"tile.alloc_{want}" in ir
    a = np.arange(N, dtype=np.float32)
    b = np.zeros(N, np.float32)
    cpu(scaled, a, b)
    np.testing.assert_allclose(b, a * 3 + 1)


def test_alloc_buffer_in_global_scope_is_a_workspace():
    N = 32

    @T.prim_func
    def through(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32):
            w = T.alloc_buffer((N,), "float32")
            for i in T.Parallel(N):
                w[i] = A[i] + 2
            T.sync_threads()
            for i in T.Parallel(N):
                B[i] = w[i]

    a = np.arange(N, dtype=np.float32)
    b = np.zeros(N, np.float32)
    cpu(through, a, b)
    np.testing.assert_allclose(b, a + 2)


def test_unknown_scope_is_an_error():
    @T.prim_func
    def bad(A: T.Tensor((8,), "float32")):
        with T.Kernel(1, threads=32):
            T.alloc_shared((8,), "float32", scope="shared.tmem")

    with pytest.raises(tilemlir.TileCompileError, match="unsupported buffer scope 'shared.tmem'"):
        tilemlir.compile(bad, target="cpu")


def _scalar_fragment(N, K):
    @T.prim_func
    def running(A: T.Tensor((K, N), "float32"), B: T.Tensor((N,), "float32"),
                M: T.Tensor((1,), "float32")):
        with T.Kernel(1, threads=64):
            acc = T.alloc_fragment((N,), "float32")
            best = T.alloc_fragment((1,), "float32")
            T.clear(acc)
            best[0] = -T.infinity("float32")
            for k in T.serial(K):
                for j in T.serial(N):
                    acc[j] = acc[j] + A[k, j]
                    best[0] = T.max(best[0], A[k, j])
            for j in T.Parallel(N):
                B[j] = acc[j] * 2
            M[0] = best[0]
    return running


def test_fragment_in_scalar_code():
    N, K = 8, 5
    a = np.random.default_rng(1).standard_normal((K, N)).astype(np.float32)
    b, m = np.zeros(N, np.float32), np.zeros(1, np.float32)
    cpu(_scalar_fragment(N, K), a, b, m)
    np.testing.assert_allclose(b, a.sum(0) * 2, rtol=1e-5)
    np.testing.assert_allclose(m, a.max(keepdims=True).reshape(1))


def test_fragment_in_scalar_code_compiles_for_sm90():
    kernel = tilemlir.compile(_scalar_fragment(8, 5), target="cuda -arch=sm_90a")
    assert ".target sm_90a" in kernel.get_kernel_source()


def test_fragment_written_by_one_thread_is_an_error_naming_the_line():
    @T.prim_func
    def racy(A: T.Tensor((4,), "float32")):
        with T.Kernel(1, threads=32):
            f = T.alloc_fragment((4,), "float32")
            T.clear(f)
            tx = T.get_thread_binding()
            if tx == 0:
                f[1] = 5.0  # racy-store
            for i in T.Parallel(4):
                A[i] = f[i]

    with pytest.raises(tilemlir.TileCompileError) as e:
        tilemlir.compile(racy, target="cuda -arch=sm_90a")
    msg = str(e.value)
    assert "other threads would not see the write" in msg
    assert "f[1] = 5.0" in msg


@pytest.mark.parametrize("kind", ["sum", "max", "absmax"])
def test_reduce_into_a_wider_dtype(kind):
    M, N = 16, 64

    @T.prim_func
    def red(A: T.Tensor((M, N), "float16"), S: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=128):
            a = T.alloc_fragment((M, N), "float16")
            s = T.alloc_fragment((M,), "float32")
            T.copy(A, a)
            getattr(T, "reduce_" + kind)(a, s, dim=1)
            T.copy(s, S)

    rng = np.random.default_rng(2)
    # f16 sums of these would round: accumulating in f32 matches numpy's f32.
    a = (rng.standard_normal((M, N)) * 30).astype(np.float16)
    s = np.zeros(M, np.float32)
    cpu(red, a, s)
    ref = {"sum": lambda x: x.sum(1), "max": lambda x: x.max(1),
           "absmax": lambda x: np.abs(x).max(1)}[kind](a.astype(np.float32))
    np.testing.assert_allclose(s, ref, rtol=1e-5, atol=1e-3)
    ptx = tilemlir.compile(red, target="cuda -arch=sm_90a").get_kernel_source()
    assert ".target sm_90a" in ptx


def test_reduce_into_a_narrower_dtype_is_an_error():
    @T.prim_func
    def bad(A: T.Tensor((4, 8), "float32"), S: T.Tensor((4,), "float16")):
        with T.Kernel(1, threads=32):
            a = T.alloc_fragment((4, 8), "float32")
            s = T.alloc_fragment((4,), "float16")
            T.copy(A, a)
            T.reduce_sum(a, s, dim=1)
            T.copy(s, S)

    with pytest.raises(tilemlir.TileCompileError, match="may only widen"):
        tilemlir.compile(bad, target="cpu")


# ------------------------------------------------ variables and selects

def test_alloc_var_dtype_keyword_starts_at_zero():
    @T.prim_func
    def main(A: T.Tensor((2,), T.int32)):
        with T.Kernel(1, threads=1):
            i = T.alloc_var(T.int32, 0)
            total = T.alloc_var(dtype=T.int32)
            untouched = T.alloc_var(T.int32)
            while i < 10:
                total += i
                i += 1
            A[0] = total
            A[1] = untouched

    (a,) = cpu(main, np.full(2, 77, np.int32))
    assert a.tolist() == [45, 0]


def test_tuple_assignment_reads_every_value_first():
    @T.prim_func
    def main(A: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=1):
            x = T.alloc_var(T.float32, A[0])
            y = T.alloc_var(T.float32, A[1])
            x, y = y, x
            A[0], A[1] = x, y
            A[2], A[3] = A[3], A[2]

    (a,) = cpu(main, np.array([1, 2, 3, 4], np.float32))
    assert a.tolist() == [2, 1, 4, 3]


def test_select_and_clamp(rng):
    n = 100

    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n, 4), T.float32)):
        with T.Kernel(T.ceildiv(n, 32), threads=32) as bx:
            for i in T.Parallel(32):
                r = bx * 32 + i
                if r < n:
                    B[r, 0] = T.Select(A[r] > 0.0, A[r], -1.0)
                    B[r, 1] = T.Select(True, A[r] * 2.0, 0.0)
                    B[r, 2] = T.clamp(A[r], -0.5, 0.25)
                    B[r, 3] = T.Select(A[r] < 0.0, T.clamp(A[r] * 4.0, -1.0, 1.0), 7.0)

    a = rng.standard_normal(n).astype(np.float32)
    _, b = cpu(main, a, np.zeros((n, 4), np.float32))
    np.testing.assert_array_equal(b[:, 0], np.where(a > 0, a, -1))
    np.testing.assert_array_equal(b[:, 1], a * 2)
    np.testing.assert_array_equal(b[:, 2], np.clip(a, -0.5, 0.25))
    np.testing.assert_array_equal(b[:, 3], np.where(a < 0, np.clip(a * 4, -1, 1), 7))
    assert T.clamp(5, 0, 3) == 3 and T.Select(False, 1, 2) == 2


# ------------------------------------------------------ helper functions

def reduce_rows(lang, kind, src, dst, **extra):
    """A plain Python helper a kernel calls with its buffers (TileLang's
    programs wrap T.reduce_* so)."""
    if kind == "sum":
        lang.reduce_sum(src, dst, dim=1, **extra)
    else:
        lang.reduce_max(src, dst, dim=1, **extra)


def misplaced_reduce(src, dst):
    T.reduce_sum(src, dst, dim=3)  # <helper-dim>


@pytest.mark.parametrize("kind", ["sum", "max"])
def test_helper_functions_call_tile_ops_on_kernel_buffers(kind, rng):
    rows, cols = 48, 40

    @T.prim_func
    def main(A: T.Tensor((rows, cols), T.float32), B: T.Tensor((rows,), T.float32)):
        with T.Kernel(1, threads=64):
            tile = T.alloc_fragment((rows, cols), T.float32)
            out = T.alloc_fragment((rows,), T.float32)
            T.copy(A, tile)
            reduce_rows(T, kind, tile, out, clear=True)
            T.copy(out, B)

    a = rng.standard_normal((rows, cols)).astype(np.float32)
    _, b = cpu(main, a, np.zeros(rows, np.float32))
    np.testing.assert_allclose(b, a.sum(1) if kind == "sum" else a.max(1), rtol=1e-5, atol=1e-5)


def test_errors_in_helper_functions_name_the_helpers_line():
    import inspect
    from conftest import marked_line

    @T.prim_func
    def main(A: T.Tensor((8, 8), T.float32)):
        with T.Kernel(1, threads=32):
            tile = T.alloc_fragment((8, 8), T.float32)
            out = T.alloc_fragment((8,), T.float32)
            misplaced_reduce(tile, out)

    with pytest.raises(tilemlir.TileCompileError) as e:
        tilemlir.compile(main, target="cpu")
    here = inspect.getsourcefile(misplaced_reduce)
    assert (e.value.filename, e.value.lineno) == (here, marked_line(here, "helper-dim")), \
        str(e.value)


def test_votes_outside_kernels_reject_float_predicates():
    from tilemlir import tvm

    for vote in (T.any_sync, T.all_sync, T.ballot_sync, T.ballot, T.syncthreads_count,
                 T.syncthreads_and, T.syncthreads_or):
        with pytest.raises(TypeError, match="requires an integer or boolean predicate"):
            vote(tvm.tirx.FloatImm("float32", 0.5))
        with pytest.raises(RuntimeError, match="only be used inside"):
            vote(1)


def test_language_dtypes_are_tvm_datatypes():
    from tilemlir import tvm
    from tilemlir.language.dtypes import _all_dtypes

    assert all(isinstance(getattr(T, name), tvm.DataType) for name in _all_dtypes)
    assert isinstance(tvm.DataType("int8"), tvm.DataType) and not isinstance("int8", tvm.DataType)


def nan_reduce(kind, nan_propagate, clear=True):
    fn = getattr(T, f"reduce_{kind}")

    @T.prim_func
    def k(A: T.Tensor((4, 64), "float16"), B: T.Tensor((4,), "float16")):
        with T.Kernel(1, threads=128):
            src = T.alloc_fragment((4, 64), "float16")
            dst = T.alloc_fragment((4,), "float16")
            T.copy(A, src)
            if not clear:
                T.fill(dst, -1.0)
            fn(src, dst, dim=1, clear=clear, nan_propagate=nan_propagate)
            T.copy(dst, B)

    return k


@pytest.mark.parametrize("kind", ["max", "min", "absmax"])
@pytest.mark.parametrize("nan_propagate", [False, True])
@pytest.mark.parametrize("clear", [True, False])
def test_reduce_nan_propagate(kind, nan_propagate, clear):
    """Rows 0 and 2 hold a NaN: by default it is skipped (TileLang's
    default), with nan_propagate=True the row's result is NaN."""
    a = np.arange(4 * 64, dtype=np.float32).reshape(4, 64) - 100
    a[0, 7] = a[2, 63] = np.nan
    a = a.astype(np.float16)
    b = np.zeros(4, dtype=np.float16)
    tilemlir.compile(nan_reduce(kind, nan_propagate, clear), target="cpu")(a, b)
    ref = {"max": np.nanmax, "min": np.nanmin,
           "absmax": lambda x, axis: np.nanmax(np.abs(x), axis=axis)}[kind](a, axis=1)
    if not clear:
        ref = np.maximum(ref, -1) if kind != "min" else np.minimum(ref, -1)
    if nan_propagate:
        ref[[0, 2]] = np.nan
    np.testing.assert_array_equal(b, ref)


def test_reduce_nan_propagate_compiles_for_sm90():
    tilemlir.compile(nan_reduce("max", True), target="cuda -arch=sm_90a")


def test_nan_propagate_is_for_max_and_min():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), B: T.Tensor((1,), "float32")):
        with T.Kernel(1, threads=32):
            src = T.alloc_fragment((64,), "float32")
            dst = T.alloc_fragment((1,), "float32")
            T.copy(A, src)
            T.reduce_sum(src, dst, nan_propagate=True)  # <nan-sum>
            T.copy(dst, B)

    from test_errors import assert_located
    with pytest.raises(tilemlir.TileCompileError) as e:
        k.script()
    assert_located(e, "nan-sum", "nan_propagate applies to T.reduce_max",
                   source=__file__)


def test_upper_case_loop_aliases():
    # T.Serial, T.Unroll and T.Vectorized are TileLang's tile-level names of
    # T.serial, T.unroll and T.vectorized.
    n = 40

    @T.prim_func
    def scale(A: T.Tensor((4, n), "float32"), B: T.Tensor((4, n), "float32")):
        with T.Kernel(1, threads=4) as bx:
            for r in T.Serial(4):
                for c in T.Unroll(0, n, 2):
                    B[r, c] = A[r, c] * 2.0
                for c in T.Vectorized(n // 2):
                    B[r, 2 * c + 1] = A[r, 2 * c + 1] + 1.0

    a = np.arange(4 * n, dtype=np.float32).reshape(4, n)
    b = tilemlir.compile(scale, out_idx=[-1], target="cpu")(a)
    want = a.copy()
    want[:, 0::2] *= 2
    want[:, 1::2] += 1
    np.testing.assert_array_equal(b, want)


def test_reduce_batch_hint_keeps_the_result():
    """TileLang's T.reduce_*(..., batch=n) (outputs a batched all-reduce
    handles) and annotations= are accepted; the sums are the same."""

    @T.prim_func
    def k(A: T.Tensor((128, 64), "float32"), B: T.Tensor((128,), "float32")):
        with T.Kernel(1, threads=256):
            src = T.alloc_shared((128, 64), "float32")
            dst = T.alloc_fragment((128,), "float32")
            T.copy(A, src)
            T.reduce_sum(src, dst, dim=1, batch=4, annotations={})
            T.copy(dst, B)

    a = np.random.default_rng(5).standard_normal((128, 64)).astype(np.float32)
    b = np.zeros(128, np.float32)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-5)
    tilemlir.compile(k, target="cuda -arch=sm_90a")


def test_reduce_batch_must_be_positive():
    @T.prim_func
    def k(A: T.Tensor((128, 64), "float32"), B: T.Tensor((128,), "float32")):
        with T.Kernel(1, threads=256):
            dst = T.alloc_fragment((128,), "float32")
            src = T.alloc_fragment((128, 64), "float32")
            T.copy(A, src)
            T.reduce_sum(src, dst, dim=1, batch=0)  # <batch-zero>
            T.copy(dst, B)

    with pytest.raises(TileCompileError) as excinfo:
        tilemlir.compile(k, target="cpu")
    assert_located(excinfo, "batch-zero", "batch must be positive", source=THIS_FILE)


def test_ceildiv_align_up_and_ldg():
    """T.ceildiv / T.align_up of typed constants (TVM's floor semantics for
    negative numerators) and of Python ints; T.__ldg(x[i]) and
    T.__ldg(x, i) read the element."""

    @T.prim_func
    def k(x: T.Tensor((8,), "float32"), y: T.Tensor((8,), "float32"),
          A: T.Tensor((6,), "int32")):
        with T.Kernel(1, threads=8):
            t = T.get_thread_binding(0)
            y[t] = T.__ldg(x[t]) * 10 + T.__ldg(x, 7 - t)
            A[0] = T.align_up(T.int32(1), T.int32(32))
            A[1] = T.align_up(T.int32(-1), T.int32(32))
            A[2] = T.align_up(T.int32(-33), T.int32(32))
            A[3] = T.align_up(100, 32)
            A[4] = T.ceildiv(T.int32(-2), T.int32(32))
            A[5] = T.ceildiv(T.int32(33), T.int32(32))

    x = np.arange(8, dtype=np.float32)
    y = np.zeros(8, np.float32)
    a = np.zeros(6, np.int32)
    cpu(k, x, y, a)
    np.testing.assert_array_equal(y, x * 10 + x[::-1])
    np.testing.assert_array_equal(a, [32, 0, -32, 128, 0, 2])
    assert T.align_up(100, 32) == 128


def test_ldg_needs_an_element():
    @T.prim_func
    def k(x: T.Tensor((8,), "float32"), y: T.Tensor((8,), "float32")):
        with T.Kernel(1, threads=8):
            y[0] = T.__ldg(x)  # <ldg-buffer>

    with pytest.raises(TileCompileError) as excinfo:
        tilemlir.compile(k, target="cpu")
    assert_located(excinfo, "ldg-buffer", "needs the index", source=THIS_FILE)
