"""T.cumsum / T.cummax (tile.scan): prefix sums and running maxima of
shared, fragment and local buffers and of regions of them, checked on the
CPU against numpy; PTX for sm_80 and sm_90a; mistakes are located errors."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def scan_ref(x, op, axis, reverse):
    """numpy's inclusive scan of `x` along `axis` (from the end with
    `reverse`)."""
    if reverse:
        x = np.flip(x, axis)
    y = np.cumsum(x, axis) if op == "sum" else np.maximum.accumulate(x, axis)
    return np.flip(y, axis) if reverse else y


def tiled_ref(a, bm, bn, op, axis, reverse):
    """scan_ref of every bm x bn tile of `a` (edge tiles are cut)."""
    out = np.empty_like(a)
    for i in range(0, a.shape[0], bm):
        for j in range(0, a.shape[1], bn):
            out[i:i + bm, j:j + bn] = scan_ref(a[i:i + bm, j:j + bn], op, axis, reverse)
    return out


def tile_scan_kernel(M, N, bm, bn, op, dim, reverse, scope, dtype="float32", threads=256):
    """Each block scans its bm x bn tile of A in a shared or fragment
    buffer, in place, and writes it to B."""
    scan = T.cumsum if op == "sum" else T.cummax

    @T.prim_func
    def k(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=threads) as (bx, by):
            if scope == "shared":
                t = T.alloc_shared((bm, bn), dtype)
            else:
                t = T.alloc_fragment((bm, bn), dtype)
            T.copy(A[by * bm, bx * bn], t)
            scan(t, dim=dim, reverse=reverse)
            T.copy(t, B[by * bm, bx * bn])
    return k


@pytest.mark.parametrize("scope", ["shared", "fragment"])
@pytest.mark.parametrize("op", ["sum", "max"])
@pytest.mark.parametrize("dim,reverse", [(0, False), (1, False), (1, True), (-2, True)])
def test_2d_tiles_on_cpu(rng, scope, op, dim, reverse):
    M, N, bm, bn = 100, 72, 64, 32  # edge tiles are partly outside A
    a = rng.standard_normal((M, N)).astype(np.float32)
    k = tile_scan_kernel(M, N, bm, bn, op, dim, reverse, scope)
    b = tilemlir.compile(k, out_idx=[-1], target="cpu")(a)
    # Outside A the edge tiles hold zeros (T.copy's padding): they only
    # come after A's elements along a forward scan, before them in reverse.
    padded = np.zeros((128, 96), np.float32)
    padded[:M, :N] = a
    np.testing.assert_allclose(b, tiled_ref(padded, bm, bn, op, dim % 2, reverse)[:M, :N],
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["sum", "max"])
@pytest.mark.parametrize("reverse", [False, True])
def test_1d_regions_with_block_offsets(rng, op, reverse):
    """A 1-d shared buffer filled from a region of A that starts at the
    block's offset, scanned out of place into a fragment."""
    N, chunk = 250, 64
    scan = T.cumsum if op == "sum" else T.cummax

    @T.prim_func
    def k(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, chunk), threads=chunk) as bx:
            s = T.alloc_shared((chunk,), "float32")
            f = T.alloc_fragment((chunk,), "float32")
            T.copy(A[bx * chunk:bx * chunk + chunk], s)
            scan(src=s, dst=f, dim=0, reverse=reverse)
            T.copy(f, B[bx * chunk:bx * chunk + chunk])

    a = rng.standard_normal(N).astype(np.float32)
    b = tilemlir.compile(k, out_idx=[-1], target="cpu")(a)
    padded = np.zeros(256, np.float32)
    padded[:N] = a
    ref = np.concatenate([scan_ref(padded[i:i + chunk], op, 0, reverse)
                          for i in range(0, 256, chunk)])
    np.testing.assert_allclose(b, ref[:N], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("op", ["sum", "max"])
@pytest.mark.parametrize("dim", [0, 1])
def test_strided_subregions_in_and_out_of_place(op, dim):
    """Scans of sub-regions of wider shared buffers (rows of another pitch),
    in place and into another buffer at an offset; what lies outside the
    regions is left alone."""
    M, N = 8, 40
    scan = T.cumsum if op == "sum" else T.cummax

    @T.prim_func
    def k(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"),
          C: T.Tensor((M + 4, 80), "float32")):
        with T.Kernel(1, threads=128):
            wide = T.alloc_shared((M, 64), "float32")
            other = T.alloc_shared((M + 4, 80), "float32")
            T.fill(wide, -7.0)
            T.fill(other, -7.0)
            for i, j in T.Parallel(M, N):
                wide[i, j] = A[i, j]
            scan(src=wide[0:M, 0:N], dst=other[4:M + 4, 16:N + 16], dim=dim, reverse=dim == 1)
            scan(wide[0:M, 0:N], dim=dim)
            for i, j in T.Parallel(M, N):
                B[i, j] = wide[i, j]
            T.copy(other, C)

    a = np.arange(M * N, dtype=np.float32).reshape(M, N) % 7 - 3
    b, c = tilemlir.compile(k, out_idx=[1, 2], target="cpu")(a)
    np.testing.assert_array_equal(b, scan_ref(a, op, dim, False))
    expect = np.full((M + 4, 80), -7.0, np.float32)
    expect[4:, 16:N + 16] = scan_ref(a, op, dim, dim == 1)
    np.testing.assert_array_equal(c, expect)


def test_dynamic_row_offset_region(rng):
    """A region whose first row is a kernel value: only its rows change."""
    H, W = 32, 8

    @T.prim_func
    def k(A: T.Tensor((H, W), "float32"), B: T.Tensor((2, H, W), "float32")):
        with T.Kernel(2, threads=64) as bx:
            s = T.alloc_shared((H, W), "float32")
            T.copy(A, s)
            T.cumsum(s[bx * 16:bx * 16 + 16, :], dim=0)
            T.copy(s, B[bx, 0:H, 0:W])

    a = rng.standard_normal((H, W)).astype(np.float32)
    b = tilemlir.compile(k, out_idx=[-1], target="cpu")(a)
    for bx in range(2):
        ref = a.copy()
        ref[bx * 16:bx * 16 + 16] = np.cumsum(a[bx * 16:bx * 16 + 16], 0)
        np.testing.assert_allclose(b[bx], ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype,npdtype", [("int32", np.int32), ("float16", np.float16),
                                           ("float64", np.float64)])
def test_element_types(rng, dtype, npdtype):
    """Integer and 16- / 64-bit float scans; local buffers scan in each
    thread."""
    N = 64

    @T.prim_func
    def k(A: T.Tensor((N,), dtype), S: T.Tensor((N,), dtype), X: T.Tensor((N,), dtype)):
        with T.Kernel(1, threads=32):
            s = T.alloc_shared((N,), dtype)
            loc = T.alloc_local((N,), dtype)
            T.copy(A, s)
            T.copy(A, loc)
            T.cumsum(s)
            T.cummax(loc, reverse=True)
            T.copy(s, S)
            T.copy(loc, X)

    a = (rng.integers(-4, 5, N)).astype(npdtype)
    s, x = tilemlir.compile(k, out_idx=[1, 2], target="cpu")(a)
    np.testing.assert_array_equal(s, np.cumsum(a).astype(npdtype))
    np.testing.assert_array_equal(x, scan_ref(a, "max", 0, True))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("scope", ["shared", "fragment"])
def test_ptx_scans_with_warp_shuffles(arch, scope):
    """The block's warps scan with shuffles up and broadcast the carry."""
    k = tile_scan_kernel(256, 256, 64, 64, "sum", 1, True, scope)
    src = tilemlir.compile(k, out_idx=[-1], target=f"cuda -arch={arch}").get_kernel_source()
    assert "shfl.sync.up.b32" in src and "shfl.sync.idx.b32" in src
    assert "bar.sync" in src


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_ptx_1d_scan_splits_the_line_over_the_warps(arch):
    """One line of 512 elements on 8 warps: each scans a part and the parts'
    totals meet in shared memory."""
    @T.prim_func
    def k(A: T.Tensor((512,), "float64"), B: T.Tensor((512,), "float64")):
        with T.Kernel(1, threads=256):
            s = T.alloc_shared((512,), "float64")
            T.copy(A, s)
            T.cummax(s, reverse=True)
            T.copy(s, B)

    src = tilemlir.compile(k, out_idx=[-1], target=f"cuda -arch={arch}").get_kernel_source()
    assert "shfl.sync.up.b32" in src and "max.f64" in src


def test_dst_of_another_shape_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((64,), "float32")
            d = T.alloc_shared((32,), "float32")
            T.cumsum(src=s, dst=d)  # <shape>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "shape", "T.cumsum", "64 region of 's'", "32 region of 'd'",
                   source=THIS_FILE)


def test_dim_out_of_range_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((8, 8), "float32")
            T.cummax(s, dim=2)  # <dim>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "dim", "dim must be an integer in [-2, 2)", source=THIS_FILE)


def test_scan_of_a_global_tensor_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128):
            T.cumsum(A)  # <global>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "global", "global tensor 'A'", "shared, fragment or local",
                   source=THIS_FILE)


def test_part_of_a_fragment_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128):
            f = T.alloc_fragment((64,), "float32")
            T.clear(f)
            T.cumsum(f[0:32])  # <part>
            T.copy(f, A)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, "part", "scans a fragment whole", source=THIS_FILE)


def test_block_scan_needs_a_warp():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=16):
            s = T.alloc_shared((64,), "float32")
            T.copy(A, s)
            T.cumsum(s)  # <warp>
            T.copy(s, A)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cuda -arch=sm_90a")
    assert_located(e, "warp", "fewer than a warp", source=THIS_FILE)
