"""TVM's thread all-reduce as TileLang's GEMV example writes it:
T.evaluate(T.tvm_thread_allreduce(1, value, True, out, thread_index)) inside
`with T.attr(T.comm_reducer(lambda x, y: ..., [identity]), "reduce_scope",
...)`: on the cpu target against numpy for thread shapes whose groups stay
in a warp, cross warps, or are not powers of two; compiled for sm_90a; its
mistakes as located errors."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def row_dot(n, k, rows, lanes, chunk=4, combine="sum"):
    """C[r] = combine over the `lanes` threads of row r of their partial dot
    products of A with B[r] (the threads of a row: thread index 1)."""

    @T.prim_func
    def main(A: T.Tensor((k,), "float16"), B: T.Tensor((n, k), "float16"),
             C: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, rows), threads=(rows, lanes)) as bn:
            tr = T.get_thread_binding(0)
            tl = T.get_thread_binding(1)
            part = T.alloc_local((1,), "float32")
            total = T.alloc_local((1,), "float32")
            T.clear(part)
            for s in T.serial(T.ceildiv(k, lanes * chunk)):
                for j in T.serial(chunk):
                    col = s * lanes * chunk + tl * chunk + j
                    if col < k:
                        part[0] += A[col].astype("float32") * B[bn * rows + tr, col].astype("float32")
            if combine == "sum":
                reducer = T.comm_reducer(lambda x, y: x + y, [T.cast(0, "float32")])
            else:
                reducer = T.comm_reducer(lambda x, y: T.max(x, y), [T.float32(-1e30)])
            with T.attr(reducer, "reduce_scope", T.reinterpret(T.uint64(0), dtype="handle")):
                T.evaluate(T.tvm_thread_allreduce(T.uint32(1), part[0], True, total[0], tl,
                                                  dtype="handle"))
            if bn * rows + tr < n:
                C[bn * rows + tr] = total[0]

    return main


def partials(a, b, lanes, chunk):
    """Each lane's partial dot products, [n, lanes]."""
    n, k = b.shape
    prod = b.astype(np.float32) * a.astype(np.float32)
    out = np.zeros((n, lanes), np.float32)
    for col in range(k):
        out[:, (col // chunk) % lanes] += prod[:, col]
    return out


# (rows, lanes): a row's lanes within a warp (butterfly), across warps
# (butterfly, then shared memory), and a thread shape that is no power of two
# (shared memory only).
SHAPES = [(4, 8), (1, 32), (2, 32), (2, 64), (3, 5)]


@pytest.mark.parametrize("rows,lanes", SHAPES)
@pytest.mark.parametrize("combine", ["sum", "max"])
def test_allreduce_on_cpu_matches_numpy(rows, lanes, combine):
    n, k = 37, 300
    kernel = tilemlir.compile(row_dot(n, k, rows, lanes, combine=combine), target="cpu")
    rng = np.random.default_rng(3)
    a = rng.standard_normal(k).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)
    c = np.zeros(n, np.float32)
    kernel(a, b, c)
    p = partials(a, b, lanes, 4)
    want = p.sum(axis=1) if combine == "sum" else p.max(axis=1)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("rows,lanes,shuffles,barriers", [
    (4, 8, True, False), (2, 32, True, True), (3, 5, False, True)])
def test_allreduce_instructions_on_sm90a(rows, lanes, shuffles, barriers):
    src = tilemlir.compile(row_dot(64, 256, rows, lanes),
                           target="cuda -arch=sm_90a").get_kernel_source()
    assert ("shfl.sync.bfly" in src) == shuffles
    assert ("bar.sync" in src) == barriers


def test_allreduce_needs_a_reduce_scope():
    @T.prim_func
    def k(C: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=32):
            t = T.get_thread_binding(0)
            r = T.alloc_local((1,), "float32")
            T.evaluate(T.tvm_thread_allreduce(1, T.float32(1), True, r[0], t))  # <no-scope>
            C[t] = r[0]

    with pytest.raises(TileCompileError) as excinfo:
        tilemlir.compile(k, target="cpu")
    assert_located(excinfo, "no-scope", "must be inside", source=THIS_FILE)


def misused_allreduce(size, over_block):
    """An all-reduce of `size` values, over the block index where
    `over_block` (not a thread index)."""

    @T.prim_func
    def k(C: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            t = T.get_thread_binding(0)
            r = T.alloc_local((2,), "float32")
            with T.attr(T.comm_reducer(lambda x, y: x + y, [0.0]), "reduce_scope", 0):
                T.evaluate(T.tvm_thread_allreduce(size, T.float32(1), True, r[0], bx if over_block else t))  # <misuse>
            C[t] = r[0]

    return k


@pytest.mark.parametrize("size,over_block,message", [
    (2, False, "several values are not supported"),
    (1, True, "thread indices of T.get_thread_binding")])
def test_misused_allreduce_is_located(size, over_block, message):
    with pytest.raises(TileCompileError) as excinfo:
        tilemlir.compile(misused_allreduce(size, over_block), target="cpu")
    assert_located(excinfo, "misuse", message, source=THIS_FILE)


def test_other_attr_keys_are_refused():
    @T.prim_func
    def k(C: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=32):
            t = T.get_thread_binding(0)
            with T.attr(0, "pragma_unroll", 1):  # <key>
                C[t] = T.float32(1)

    with pytest.raises(TileCompileError) as excinfo:
        tilemlir.compile(k, target="cpu")
    assert_located(excinfo, "key", "'pragma_unroll' is not supported", source=THIS_FILE)
