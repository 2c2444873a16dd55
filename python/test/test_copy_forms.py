"""T.async_copy (with T.ptx_commit_group / T.ptx_wait_group), T.transpose,
and T.copy's annotations= / prefer_instruction=, on the cpu target against
numpy and compiled for sm_90a / sm_80; their mistakes as located errors."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def staged_scale(M, N, bm, bn):
    @T.prim_func
    def k(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            s = T.alloc_shared((bm, bn), "float16")
            T.async_copy(A[by * bm, bx * bn], s)
            T.ptx_commit_group()
            T.ptx_wait_group(0)
            for i, j in T.Parallel(bm, bn):
                s[i, j] = s[i, j] * 3
            T.copy(s, B[by * bm, bx * bn], annotations={"prefer_instruction": "sync",
                                                        "other.hint": 1})

    return k


def test_async_copy_then_wait(rng):
    M, N = 40, 72  # not multiples of the 32x64 tile
    a = rng.standard_normal((M, N)).astype(np.float16)
    b = np.zeros_like(a)
    tilemlir.compile(staged_scale(M, N, 32, 64), target="cpu")(a, b)
    np.testing.assert_array_equal(b, a * np.float16(3))


@pytest.mark.parametrize("target", ["cuda -arch=sm_90a", "cuda -arch=sm_80"])
def test_async_copy_compiles_for_gpus(target):
    tilemlir.compile(staged_scale(128, 128, 32, 64), target=target)


def test_async_copy_only_loads_shared():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32):
            s0 = T.alloc_shared((64,), "float32")
            s1 = T.alloc_shared((64,), "float32")
            T.copy(A, s0)
            T.async_copy(s0, s1)  # <shared-to-shared>
            T.copy(s1, B)

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "shared-to-shared", "only copies global memory into a shared buffer",
                   source=THIS_FILE)


def test_unknown_prefer_instruction():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=32):
            s = T.alloc_shared((64,), "float32")
            T.copy(A, s, annotations={"prefer_instruction": "dma"})  # <prefer>
            T.copy(s, B)

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "prefer", "unknown prefer_instruction 'dma'", source=THIS_FILE)


def blocked_transpose(M, N, bm, bn):
    @T.prim_func
    def k(A: T.Tensor((M, N), "float32"), B: T.Tensor((N, M), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            t = T.alloc_shared((bm, bn), "float32")
            tt = T.alloc_shared((bn, bm), "float32")
            T.copy(A[by * bm:(by + 1) * bm, bx * bn:(bx + 1) * bn], t)
            T.transpose(t, tt)
            T.copy(tt, B[bx * bn:(bx + 1) * bn, by * bm:(by + 1) * bm])

    return k


def test_transpose(rng):
    M, N = 50, 36
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = np.zeros((N, M), dtype=np.float32)
    tilemlir.compile(blocked_transpose(M, N, 32, 16), target="cpu")(a, b)
    np.testing.assert_array_equal(b, a.T)
    tilemlir.compile(blocked_transpose(128, 128, 64, 32), target="cuda -arch=sm_90a")


def test_transpose_of_a_region(rng):
    """Regions: the lower-left 8x4 corner of a tile into a 4x8 buffer."""
    @T.prim_func
    def k(A: T.Tensor((16, 16), "float32"), B: T.Tensor((4, 8), "float32")):
        with T.Kernel(1, threads=32):
            t = T.alloc_shared((16, 16), "float32")
            tt = T.alloc_shared((4, 8), "float32")
            T.copy(A, t)
            T.transpose(t[8:16, 0:4], tt)
            T.copy(tt, B)

    a = rng.standard_normal((16, 16)).astype(np.float32)
    b = np.zeros((4, 8), dtype=np.float32)
    tilemlir.compile(k, target="cpu")(a, b)
    np.testing.assert_array_equal(b, a[8:16, 0:4].T)


def test_transpose_shapes_must_swap():
    @T.prim_func
    def k(A: T.Tensor((16, 8), "float32")):
        with T.Kernel(1, threads=32):
            t = T.alloc_shared((16, 8), "float32")
            tt = T.alloc_shared((16, 8), "float32")
            T.copy(A, t)
            T.transpose(t, tt)  # <not-swapped>
            T.copy(tt, A)

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "not-swapped", "last two sizes swapped", source=THIS_FILE)


def test_rocm_target_check():
    """tilelang.rocm.target's check: no HIP runtime on this machine."""
    from tilemlir.rocm.target import check_hip_availability
    assert check_hip_availability() in (True, False)
    import tilemlir.rocm
    assert tilemlir.rocm.language is T


def rows_of_a_product(M, K, N, rows, bm=64):
    """A block's GEMM result of which only the first `rows` rows are kept:
    T.copy(acc[:rows, :], s) from a region of the accumulator fragment into
    shared memory, then to the output (TileLang's GQA decode keeps the
    valid heads of its 64-row block so)."""

    @T.prim_func
    def k(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
          C: T.Tensor((M // bm * rows, N), "float16")):
        with T.Kernel(M // bm, threads=128) as bx:
            A_s = T.alloc_shared((bm, K), "float16")
            B_s = T.alloc_shared((K, N), "float16")
            acc = T.alloc_fragment((bm, N), "float32")
            out = T.alloc_shared((rows, N), "float16")
            T.copy(A[bx * bm, 0], A_s)
            T.copy(B, B_s)
            T.clear(acc)
            T.gemm(A_s, B_s, acc)
            T.copy(acc[:rows, :], out)
            T.copy(out, C[bx * rows, 0])

    return k


def rows_of_a_product_reference(a, b, rows, bm=64):
    full = (a.astype(np.float32) @ b.astype(np.float32)).reshape(-1, bm, b.shape[1])
    return full[:, :rows].reshape(-1, b.shape[1])


@pytest.mark.parametrize("rows", [4, 13])
def test_copy_from_a_region_of_a_fragment(rng, rows):
    a = rng.standard_normal((128, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    c = tilemlir.compile(rows_of_a_product(128, 32, 64, rows), out_idx=[-1], target="cpu")(a, b)
    np.testing.assert_allclose(c.astype(np.float32), rows_of_a_product_reference(a, b, rows),
                               rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("target", ["cuda -arch=sm_90a", "cuda -arch=sm_80"])
def test_copy_from_a_region_of_a_fragment_compiles_for_gpus(target):
    kernel = tilemlir.compile(rows_of_a_product(128, 32, 64, 4), out_idx=[-1], target=target)
    assert ".entry" in kernel.get_kernel_source()


def split_rows_into_tiles(n, rows, tile):
    """Block b copies the `rows`-row region A[b*rows:(b+1)*rows] into a
    `tile`-row shared tile (tile >= rows, TileLang's split-KV decode) and
    writes the tile out: the tile's extents are read from the region's
    start, past the tensor's end as zeros."""

    @T.prim_func
    def k(A: T.Tensor((n, 8), "float32"), B: T.Tensor((n // rows, tile, 8), "float32")):
        with T.Kernel(n // rows, threads=32) as bx:
            s = T.alloc_shared((tile, 8), "float32")
            T.copy(A[bx * rows:(bx + 1) * rows, :], s)
            T.copy(s, B[bx, 0:tile, :])

    return k


def test_global_region_smaller_than_its_tile_reads_the_tile(rng):
    n, rows, tile = 20, 5, 8
    a = rng.standard_normal((n, 8)).astype(np.float32)
    b = tilemlir.compile(split_rows_into_tiles(n, rows, tile), out_idx=[-1], target="cpu")(a)
    padded = np.vstack([a, np.zeros((tile, 8), np.float32)])
    want = np.stack([padded[i * rows:i * rows + tile] for i in range(n // rows)])
    np.testing.assert_array_equal(b, want)


def test_tile_smaller_than_its_global_region_is_an_error():
    @T.prim_func
    def k(A: T.Tensor((64, 8), "float32"), B: T.Tensor((16, 8), "float32")):
        with T.Kernel(1, threads=32) as bx:
            s = T.alloc_shared((16, 8), "float32")
            T.copy(A[0:32, :], s)  # <region-larger>
            T.copy(s, B)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, "region-larger", "both sides must have the same extents",
                   source=THIS_FILE)
