"""TileLang's atomic forms beyond one element: T.atomic_addx2 / x4 and
use_tma=, on the CPU against numpy; their mistakes are located errors."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


@pytest.mark.parametrize("lanes", [2, 4])
def test_atomic_add_lanes(rng, lanes):
    """T.atomic_addx2 / x4: `lanes` consecutive elements from the element
    given, each added atomically (every pair added by two blocks here)."""
    M, N = 8, 16
    op = T.atomic_addx2 if lanes == 2 else T.atomic_addx4

    @T.prim_func
    def k(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(2, threads=32) as bx:
            for i, j in T.Parallel(M, N // lanes):
                op(B[i, j * lanes], A[i, j * lanes])

    a = rng.standard_normal((M, N)).astype(np.float32)
    b = np.ones((M, N), dtype=np.float32)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_allclose(b, 1 + 2 * a, rtol=1e-5, atol=1e-6)


def test_atomic_add_lanes_region_must_match():
    @T.prim_func
    def k(A: T.Tensor((4, 8), "float32"), B: T.Tensor((4, 8), "float32")):
        with T.Kernel(1, threads=32):
            T.atomic_addx4(B[0, 0:2], A[0, 0:4])  # <lanes-region>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "lanes-region", "4 elements along its last dimension", source=THIS_FILE)


def test_atomic_add_use_tma_is_a_hint(rng):
    """T.atomic_add(dst, tile, use_tma=True) adds the tile as without it."""
    @T.prim_func
    def k(A: T.Tensor((16, 16), "float32"), B: T.Tensor((16, 16), "float32")):
        with T.Kernel(2, threads=128):
            s = T.alloc_shared((16, 16), "float32")
            T.copy(A, s)
            T.atomic_add(B, s, use_tma=True)

    a = rng.standard_normal((16, 16)).astype(np.float32)
    b = np.zeros((16, 16), dtype=np.float32)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_allclose(b, 2 * a, rtol=1e-6)


def test_atomic_add_return_prev_gives_old_values(rng):
    """return_prev=True: every element's value before this thread's
    addition (each element is updated by one thread here)."""
    M, N = 12, 20  # not multiples of the 8x8 tile

    @T.prim_func
    def k(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"),
          Old: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, 8), T.ceildiv(N, 8), threads=32) as (bx, by):
            for i, j in T.Parallel(8, 8):
                r, c = bx * 8 + i, by * 8 + j
                if r < M and c < N:
                    Old[r, c] = T.atomic_add(B[r, c], A[r, c], return_prev=True)

    a = rng.standard_normal((M, N)).astype(np.float32)
    b = rng.standard_normal((M, N)).astype(np.float32)
    old = np.zeros((M, N), dtype=np.float32)
    b0 = b.copy()
    tilemlir.compile(k, target="cpu")(a, b, old)
    np.testing.assert_array_equal(old, b0)
    np.testing.assert_allclose(b, b0 + a, rtol=1e-6)


def test_atomic_counter_return_prev_runs_once():
    """A returned counter used twice (bound check and store index) comes from
    one atomic: the counter ends at the number of positive inputs and every
    slot below it is written exactly once."""
    n, block = 200, 64

    @T.prim_func
    def compact(X: T.Tensor((n,), "float32"), Out: T.Tensor((n,), "int32"),
                Count: T.Tensor((1,), "int32")):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            tx = T.get_thread_binding()
            i = bx * block + tx
            if i < n and X[i] > 0:
                slot = T.atomic_add(Count[0], 1, return_prev=True)
                if slot < n:
                    Out[slot] = i

    x = np.where(np.arange(n) % 3 == 0, -1.0, 1.0).astype(np.float32)
    out = np.full((n,), -1, dtype=np.int32)
    count = np.zeros((1,), dtype=np.int32)
    tilemlir.compile(compact, target="cpu")(x, out, count)
    positive = np.flatnonzero(x > 0)
    assert count[0] == len(positive)
    np.testing.assert_array_equal(np.sort(out[:count[0]]), positive)
    assert (out[count[0]:] == -1).all()


@pytest.mark.parametrize("op,val,expect", [("atomic_max", 5.0, 5.0), ("atomic_min", 1.0, 1.0)])
def test_atomic_max_min_return_prev(op, val, expect):
    fn = getattr(T, op)

    @T.prim_func
    def k(D: T.Tensor((1,), "float32"), P: T.Tensor((1,), "float32")):
        with T.Kernel(1, threads=1):
            P[0] = fn(D[0], val, return_prev=True)

    d = np.array([3.0], dtype=np.float32)
    p = np.zeros((1,), dtype=np.float32)
    tilemlir.compile(k, target="cpu")(d, p)
    assert p[0] == 3.0 and d[0] == expect


@pytest.mark.parametrize("lanes,dtype", [(2, "float32"), (4, "float32"), (2, "float16")])
def test_atomic_add_lanes_return_prev(lanes, dtype):
    """T.atomic_addx2 / x4 with return_prev=True: the old values of the
    lanes, stored into a region; the destination may be a named region."""
    op = T.atomic_addx2 if lanes == 2 else T.atomic_addx4

    @T.prim_func
    def k(D: T.Tensor((lanes,), dtype), V: T.Tensor((lanes,), dtype),
          P: T.Tensor((lanes,), dtype)):
        with T.Kernel(1, threads=1):
            dst = D[0:lanes]
            P[0:lanes] = op(dst, V[0:lanes], return_prev=True)

    d = np.arange(1, lanes + 1).astype(dtype)
    v = (10 * np.arange(1, lanes + 1)).astype(dtype)
    p = np.zeros((lanes,), dtype=dtype)
    d0 = d.copy()
    tilemlir.compile(k, target="cpu")(d, v, p)
    np.testing.assert_array_equal(p, d0)
    np.testing.assert_array_equal(d, d0 + v)


def test_atomic_return_prev_needs_an_element():
    @T.prim_func
    def k(A: T.Tensor((4, 8), "float32"), B: T.Tensor((4, 8), "float32")):
        with T.Kernel(1, threads=32):
            x = T.atomic_add(B[0, 0:4], 1.0, return_prev=True)  # <prev-region>
            A[0, 0] = x

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "prev-region", "must be an element", source=THIS_FILE)


def test_atomic_return_prev_ir():
    """The old value comes from one memref.atomic_rmw."""
    @T.prim_func
    def k(D: T.Tensor((8,), "int32"), P: T.Tensor((8,), "int32")):
        with T.Kernel(1, threads=8):
            for i in T.Parallel(8):
                P[i] = T.atomic_max(D[i], i, return_prev=True)

    text = k.script()
    assert text.count("memref.atomic_rmw maxs") == 1
    assert "tile.atomic_max" not in text


def test_atomic_add_lanes_ramp_indices():
    """T.Ramp(i, 1, n) indexes the n elements from i (TVM's vector index)."""
    @T.prim_func
    def k(D: T.Tensor((4,), "float32"), V: T.Tensor((4,), "float32"),
          P: T.Tensor((4,), "float32")):
        with T.Kernel(1, threads=1):
            P[2:4] = T.atomic_addx2(D[T.Ramp(2, 1, 2)], V[T.Ramp(0, 1, 2)], return_prev=True)

    d = np.array([1, 2, 3, 4], dtype=np.float32)
    v = np.array([10, 20, 30, 40], dtype=np.float32)
    p = np.zeros(4, dtype=np.float32)
    tilemlir.compile(k, target="cpu")(d, v, p)
    np.testing.assert_array_equal(p, [0, 0, 3, 4])
    np.testing.assert_array_equal(d, [1, 2, 13, 24])


def test_ramp_with_a_stride_is_an_error():
    @T.prim_func
    def k(D: T.Tensor((8,), "float32"), V: T.Tensor((8,), "float32")):
        with T.Kernel(1, threads=1):
            T.atomic_addx2(D[T.Ramp(0, 2, 2)], V[0:2])  # <strided-ramp>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "strided-ramp", "only consecutive elements", source=THIS_FILE)


def test_element_atomics_run_once_per_thread_on_the_cpu():
    """An atomic on one element in thread-level code updates it once per
    thread that reaches it (as on GPUs), also without other thread-level
    code in the kernel; with the thread index in it, each thread its own."""

    @T.prim_func
    def same(C: T.Tensor((4,), "float32")):
        with T.Kernel(2, threads=4):
            T.atomic_add(C[0], 1.0)

    @T.prim_func
    def per_thread(C: T.Tensor((4,), "float32")):
        with T.Kernel(2, threads=4):
            t = T.get_thread_binding(0)
            if t < 3:
                T.atomic_add(C[t], 1.0)
            T.atomic_max(C[3], T.cast(t, "float32") * 10)

    c = np.zeros(4, np.float32)
    tilemlir.compile(same, target="cpu")(c)
    np.testing.assert_array_equal(c, [8, 0, 0, 0])
    c = np.zeros(4, np.float32)
    tilemlir.compile(per_thread, target="cpu")(c)
    np.testing.assert_array_equal(c, [2, 2, 2, 30])
