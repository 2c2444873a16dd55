"""Out-of-bounds safety on the "cpu" target, checked against numpy: tile
atomics over regions update every element of the region; accesses of global
tensors past their ends are guarded (loads read 0 or the safe value of
T.annotate_safe_value, stores are dropped); constant indices outside
on-chip buffers are errors at the user's line.

Tensors that a kernel could overrun are views into larger arrays, so that
an unguarded access lands in memory the test can see instead of corrupting
the heap."""

import inspect

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

from conftest import marked_line

THIS_FILE = inspect.getsourcefile(lambda: None)


def assert_error_at(prim, marker, fragment):
    """Compiling `prim` fails at the line marked `# <marker>`, saying
    `fragment`."""
    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(prim)
    assert e.value.lineno == marked_line(THIS_FILE, marker), str(e.value)
    assert fragment in str(e.value)


def padded(n, extra, fill, dtype=np.float32):
    """A view of the first n elements of an array of n + extra filled with
    `fill`, and the whole array."""
    base = np.full(n + extra, fill, dtype)
    return base[:n], base


# ------------------------------------------------------- atomics over regions

def atomic_region_program(M, N, bm, bn, kind, value):
    op = getattr(T, f"atomic_{kind}")

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, bm), T.ceildiv(N, bn), threads=32) as (bx, by):
            op(A[bx * bm:(bx + 1) * bm, by * bn:(by + 1) * bn], value)

    return main


def test_atomic_add_region_scalar():
    # TileLang's tile_atomic_add_expr_program: 16 regions of 32x32.
    kernel = tilemlir.compile(atomic_region_program(128, 128, 32, 32, "add", 1.0))
    a = np.zeros((128, 128), np.float32)
    kernel(a)
    np.testing.assert_array_equal(a, np.ones((128, 128), np.float32))
    kernel(a)
    np.testing.assert_array_equal(a, np.full((128, 128), 2.0, np.float32))


@pytest.mark.parametrize("kind,value,ref", [("max", 0.5, np.maximum), ("min", -0.25, np.minimum)])
def test_atomic_max_min_region_scalar(rng, kind, value, ref):
    kernel = tilemlir.compile(atomic_region_program(64, 96, 32, 32, kind, value))
    a = rng.standard_normal((64, 96)).astype(np.float32)
    expect = ref(a, np.float32(value))
    kernel(a)
    np.testing.assert_array_equal(a, expect)


def test_atomic_region_over_the_edge():
    # 100x70 in 32x32 regions: the elements of the regions outside the
    # tensor are dropped (the tensor is a view, so they would show).
    M, N = 100, 70
    base = np.zeros((M + 4, N), np.float32)
    a = base[:M]
    kernel = tilemlir.compile(atomic_region_program(M, N, 32, 32, "add", 1.0))
    kernel(a)
    np.testing.assert_array_equal(base[:M], np.ones((M, N), np.float32))
    np.testing.assert_array_equal(base[M:], 0)


def test_atomic_add_whole_buffer_scalar():
    # A whole tensor as the destination of a scalar: every element.
    @T.prim_func
    def main(A: T.Tensor((8, 16), "int32")):
        with T.Kernel(3, threads=64) as bx:
            T.atomic_add(A, 2)

    a = np.zeros((8, 16), np.int32)
    tilemlir.compile(main)(a)
    np.testing.assert_array_equal(a, np.full((8, 16), 6, np.int32))


def test_atomic_add_region_tile_from_fragment(rng):
    # A region destination with a tile of its shape.
    M, N, bm = 64, 32, 16

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), S: T.Tensor((M, N), "float32")):
        with T.Kernel(M // bm, threads=32) as bx:
            t = T.alloc_fragment((bm, N), "float32")
            T.copy(A[bx * bm, 0], t)
            T.atomic_add(S[bx * bm:(bx + 1) * bm, 0:N], t)

    a = rng.standard_normal((M, N)).astype(np.float32)
    s = np.ones((M, N), np.float32)
    tilemlir.compile(main)(a, s)
    np.testing.assert_allclose(s, a + 1, rtol=1e-6)


def test_atomic_region_tile_shape_mismatch():
    @T.prim_func
    def main(S: T.Tensor((64, 32), "float32")):
        with T.Kernel(1, threads=32) as bx:
            t = T.alloc_fragment((16, 32), "float32")
            T.clear(t)
            T.atomic_add(S[0:32, 0:32], t)  # <mismatch>

    assert_error_at(main, "mismatch", "the shapes must match")


# ------------------------------------------------ global accesses past the end

def test_parallel_tail_is_guarded():
    # The kernel: 4 blocks of 64 lanes over 200 elements.
    N = 200

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
             C: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
            for lane in T.Parallel(64):
                idx = bx * 64 + lane
                A[idx] = 1.0
                B[idx] = 1.0
                C[idx] = 1.0

    views = [padded(N, 64, -7.0) for _ in range(3)]
    tilemlir.compile(main)(*(v for v, _ in views))
    for v, base in views:
        np.testing.assert_array_equal(v, 1.0)
        np.testing.assert_array_equal(base[N:], -7.0)


def test_loads_past_the_end_read_zero():
    N = 200

    @T.prim_func
    def main(B: T.Tensor((N,), "float32"), C: T.Tensor((256,), "float32")):
        with T.Kernel(4, threads=64) as bx:
            for lane in T.Parallel(64):
                C[bx * 64 + lane] = B[bx * 64 + lane] + 1.0

    b, _ = padded(N, 56, 100.0)
    b[:] = np.arange(N)
    c = np.full(256, np.nan, np.float32)
    tilemlir.compile(main)(b, c)
    np.testing.assert_array_equal(c, np.concatenate([np.arange(N) + 1, np.ones(56)]))


def test_scalar_code_and_read_modify_write_are_guarded(rng):
    # Scalar code outside T.Parallel and a reduction into global memory
    # (S[idx] += ...) over the edge of the tensor.
    N = 100

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), S: T.Tensor((N,), "float32"),
             L: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
            L[bx * 32 + 31] = A[bx * 32 + 31]
            for i in T.serial(32):
                S[bx * 32 + i] = S[bx * 32 + i] + A[bx * 32 + i]

    a = rng.standard_normal(N).astype(np.float32)
    s, s_base = padded(N, 28, 5.0)
    l, l_base = padded(N, 28, 5.0)
    s[:] = 1.0
    l[:] = 0.0
    tilemlir.compile(main)(a, s, l)
    np.testing.assert_allclose(s, a + 1.0, rtol=1e-6)
    np.testing.assert_array_equal(s_base[N:], 5.0)
    expect = np.zeros(N, np.float32)
    expect[31::32] = a[31::32]
    np.testing.assert_array_equal(l, expect)
    np.testing.assert_array_equal(l_base[N:], 5.0)


def test_annotate_safe_value_parallel():
    # Rows shifted down by 10: the first 10 rows read A above its start,
    # which gives the safe value (TileLang's annotate_safe_value test).
    M, N, bm, bn = 64, 64, 32, 32

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bn), "float32")
            T.annotate_safe_value({A: 10.0})
            for i, j in T.Parallel(bm, bn):
                A_s[i, j] = A[by * bm + i - 10, bx * bn + j]
            for i, j in T.Parallel(bm, bn):
                B[by * bm + i, bx * bn + j] = A_s[i, j]

    a = np.arange(M * N, dtype=np.float32).reshape(M, N)
    b = np.zeros((M, N), np.float32)
    tilemlir.compile(main)(a, b)
    expect = np.vstack([np.full((10, N), 10.0, np.float32), a[:-10]])
    np.testing.assert_array_equal(b, expect)


def test_annotate_safe_value_copy():
    # A 64x64 tile of a 60x60 tensor: the copy reads the safe value outside.
    @T.prim_func
    def main(A: T.Tensor((60, 60), "int32"), Out: T.Tensor((64, 64), "int32")):
        with T.Kernel(1, threads=128) as bx:
            s = T.alloc_shared((64, 64), "int32")
            T.annotate_safe_value({A: -1})
            T.copy(A[0:64, 0:64], s)
            T.copy(s, Out)

    a = np.arange(3600, dtype=np.int32).reshape(60, 60)
    out = np.zeros((64, 64), np.int32)
    tilemlir.compile(main)(a, out)
    np.testing.assert_array_equal(out[:60, :60], a)
    assert (out[60:, :] == -1).all() and (out[:, 60:] == -1).all()


def test_annotate_safe_value_needs_a_global_tensor():
    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            s = T.alloc_shared((64,), "float32")
            T.annotate_safe_value({s: 0.0})  # <safe-shared>

    assert_error_at(main, "safe-shared", "global tensors")


# --------------------------------------------------------- on-chip buffers

def test_shared_constant_index_out_of_range_is_an_error():
    @T.prim_func
    def main(A: T.Tensor((64, 32), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((64, 32), "float32")
            T.copy(A, A_s)
            A_s[200, 0] = 1000.0  # <shared-200>
            T.copy(A_s, A)

    assert_error_at(main, "shared-200",
                    "store index 200 is outside dimension 0 of the shared buffer")


def test_fragment_negative_constant_index_is_an_error():
    @T.prim_func
    def main(C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            C_l = T.alloc_fragment((64, 64), "float32")
            T.clear(C_l)
            C[0, 0] = C_l[-1, 0]  # <fragment-neg>

    assert_error_at(main, "fragment-neg",
                    "load index -1 is outside dimension 0 of the fragment buffer")


def test_shared_dynamic_index_never_writes_outside():
    # Scatter into row 1 of a 3x16 shared buffer at columns from the data,
    # some outside [0, 16): those stores are dropped (unguarded, they would
    # land in rows 0 and 2).
    @T.prim_func
    def main(I: T.Tensor((64,), "int32"), O: T.Tensor((3, 16), "float32")):
        with T.Kernel(1, threads=64) as bx:
            s = T.alloc_shared((3, 16), "float32")
            T.clear(s)
            for j in T.Parallel(64):
                s[1, I[j]] = 1.0
            T.copy(s, O)

    idx = np.arange(-16, 48, dtype=np.int32)
    o = np.full((3, 16), np.nan, np.float32)
    tilemlir.compile(main)(idx, o)
    np.testing.assert_array_equal(o, [[0] * 16, [1] * 16, [0] * 16])


@pytest.mark.parametrize("row", [1, 3])
def test_copy_into_shared_at_a_data_dependent_row(rng, row):
    # Two rows copied into a 4-row shared buffer at a row read from memory:
    # at row 3 the region would pass the buffer's end, so the copy is
    # dropped instead of writing past it.
    @T.prim_func
    def main(A: T.Tensor((2, 16), "float32"), R: T.Tensor((1,), "int32"),
             O: T.Tensor((4, 16), "float32")):
        with T.Kernel(1, threads=32) as bx:
            s = T.alloc_shared((4, 16), "float32")
            T.clear(s)
            r = R[0]
            T.copy(A, s[r, 0])
            T.copy(s, O)

    a = rng.standard_normal((2, 16)).astype(np.float32)
    o = np.full((4, 16), np.nan, np.float32)
    tilemlir.compile(main)(a, np.array([row], np.int32), o)
    expect = np.zeros((4, 16), np.float32)
    if row + 2 <= 4:
        expect[row:row + 2] = a
    np.testing.assert_array_equal(o, expect)


def test_fill_of_a_region_is_a_located_error():
    # T.fill / T.clear take whole buffers: a region is reported rather than
    # filled in part.
    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            s = T.alloc_shared((64,), "float32")
            T.fill(s[0:16], 1.0)  # <fill-region>
            T.copy(s, A)

    assert_error_at(main, "fill-region", "whole buffer")


def test_parallel_loop_past_a_fragment_is_an_error():
    # TileLang's attention-sink example fills a fragment of `heads`
    # elements for every row of the block; past its end the program reads
    # whatever the registers hold there. Reported where it happens.
    @T.prim_func
    def main(S: T.Tensor((8,), "float32"), O: T.Tensor((16,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            sinks = T.alloc_fragment([8], "float32")
            for i in T.Parallel(16):
                sinks[i] = S[0]  # <sinks-store>
            for i in T.Parallel(16):
                O[i] = sinks[i]

    assert_error_at(main, "sinks-store",
                    "store index runs from 0 to 15 in the loops around it, outside "
                    "dimension 0 of the fragment buffer")


def test_guarded_loop_index_into_a_fragment_runs():
    @T.prim_func
    def main(S: T.Tensor((8,), "float32"), O: T.Tensor((16,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            part = T.alloc_fragment([8], "float32")
            for i in T.Parallel(16):
                if i < 8:
                    part[i] = S[i] * 2.0
            for i in T.Parallel(16):
                if i < 8:
                    O[i] = part[i]
                else:
                    O[i] = -1.0

    s = np.arange(8, dtype=np.float32)
    o = np.zeros(16, np.float32)
    tilemlir.compile(main, target="cpu")(s, o)
    np.testing.assert_array_equal(o, np.concatenate([s * 2, -np.ones(8, np.float32)]))
