"""float4_e2m1fn (TileLang's 4-bit float: 1 sign bit, 2 exponent bits with
bias 1, 1 mantissa bit) stored two a byte, the element of even innermost
index in the low nibble. CPU runs against a reference codec written here
from the format's definition; sm_80 / sm_90a compiles checked in their PTX.
"""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)

# ------------------------------------------------------------ reference codec

# The magnitudes of codes 0..7: exponent field 0 is subnormal (0, 0.5),
# otherwise 2^(e - 1) * (1 + m / 2).
MAGNITUDES = np.array([(m * 0.5) if e == 0 else 2.0 ** (e - 1) * (1 + m / 2)
                       for e in range(4) for m in range(2)])
assert MAGNITUDES.tolist() == [0, 0.5, 1, 1.5, 2, 3, 4, 6]


def decode(codes):
    """float32 values of 4-bit codes."""
    codes = np.asarray(codes, dtype=np.uint8)
    mag = MAGNITUDES[codes & 7]
    return np.where(codes & 8, -mag, mag).astype(np.float32)


def encode(x):
    """4-bit codes of float values as CUDA's conversion gives them (and so
    TileLang's casts): the nearest magnitude, a tie to the even code; above
    6 (infinities too) saturates to 6; NaN is +6; the sign stays (-0.1 is
    -0)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty(x.shape, dtype=np.uint8)
    for idx, v in np.ndenumerate(x):
        if np.isnan(v):
            out[idx] = 7
            continue
        a = min(abs(v), 6.0)   # saturation (infinities too)
        dist = np.abs(MAGNITUDES - a)
        best = [c for c in range(8) if dist[c] == dist.min()]
        code = best[0] if len(best) == 1 else next(c for c in best if c % 2 == 0)
        out[idx] = code | (8 if np.signbit(v) else 0)
    return out


def pack(codes):
    """Bytes of codes along the last axis: even index in the low nibble."""
    codes = np.asarray(codes, dtype=np.uint8)
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def unpack(data):
    data = np.asarray(data, dtype=np.uint8)
    out = np.empty(data.shape[:-1] + (data.shape[-1] * 2,), dtype=np.uint8)
    out[..., 0::2] = data & 0xF
    out[..., 1::2] = data >> 4
    return out


def test_reference_codec():
    assert decode(np.arange(16)).tolist() == [0, 0.5, 1, 1.5, 2, 3, 4, 6,
                                              -0.0, -0.5, -1, -1.5, -2, -3, -4, -6]
    assert encode(decode(np.arange(16))).tolist() == list(range(16))
    # Ties to even codes, saturation, NaN, signed zeros.
    assert encode([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0]).tolist() == [0, 2, 2, 4, 4, 6, 6]
    assert encode([7.0, np.inf, -np.inf, np.nan, -0.1]).tolist() == [7, 7, 15, 7, 8]
    assert pack([[1, 2, 3, 4]]).tolist() == [[0x21, 0x43]]


# Values that exercise every rounding boundary from both sides, ties,
# saturation, NaN, infinities and zeros of both signs.
SPECIAL = [0.0, -0.0, 0.1, 0.25, 0.2500001, 0.5, 0.74, 0.75, 0.76, 1.0, 1.25, 1.2501, 1.5,
           1.75, 1.7499, 2.0, 2.5, 2.51, 3.0, 3.5, 3.49, 4.0, 5.0, 5.0001, 6.0, 6.5, 100.0,
           np.inf, -np.inf, np.nan, -np.nan, -0.3, -1.3, -2.5, -3.5, -5.5, -7.0, 1e-30]


def specials_and_random(shape, rng):
    x = rng.uniform(-8, 8, size=shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[:len(SPECIAL)] = SPECIAL
    return x


@pytest.fixture
def rng():
    return np.random.default_rng(7)


# -------------------------------------------------------------- conversions

def quantize_kernel(M, N, bm, bn, src_dtype):
    """Casts a src_dtype tensor to float4_e2m1fn, a tile a block, through a
    fragment; tiles hang over the tensor's edges."""
    @T.prim_func
    def k(A: T.Tensor((M, N), src_dtype), B: T.Tensor((M, N), T.float4_e2m1fn)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            f = T.alloc_fragment((bm, bn), src_dtype)
            T.copy(A[by * bm, bx * bn], f)
            for i, j in T.Parallel(bm, bn):
                if by * bm + i < M and bx * bn + j < N:
                    B[by * bm + i, bx * bn + j] = T.cast(f[i, j], T.float4_e2m1fn)
    return k


@pytest.mark.parametrize("src", ["float32", "float16", "bfloat16", "float64"])
def test_cast_to_fp4_rounds_to_nearest_even_and_saturates(src, rng):
    M, N = 37, 50   # not multiples of the 16 x 32 tiles
    x = specials_and_random((M, N), rng)
    a = x.astype(T.dtype(src).numpy)
    k = tilemlir.compile(quantize_kernel(M, N, 16, 32, src), out_idx=[1], target="cpu")
    b = k(a)
    assert b.dtype == np.uint8 and b.shape == (M, N // 2)
    want = pack(encode(a.astype(np.float64)))
    np.testing.assert_array_equal(unpack(b), unpack(want))


def dequantize_kernel(M, N, bm, bn, dst_dtype):
    """float4_e2m1fn to dst_dtype: T.copy with the conversion into shared
    memory, and a T.Parallel cast from a fragment, both to global."""
    @T.prim_func
    def k(A: T.Tensor((M, N), T.float4_e2m1fn), B: T.Tensor((M, N), dst_dtype),
          C: T.Tensor((M, N), dst_dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            s = T.alloc_shared((bm, bn), dst_dtype)
            T.copy(A[by * bm, bx * bn], s)
            T.copy(s, B[by * bm, bx * bn])
            f = T.alloc_fragment((bm, bn), T.float4_e2m1fn)
            T.copy(A[by * bm, bx * bn], f)
            g = T.alloc_fragment((bm, bn), dst_dtype)
            for i, j in T.Parallel(bm, bn):
                g[i, j] = T.cast(f[i, j], dst_dtype)
            T.copy(g, C[by * bm, bx * bn])
    return k


@pytest.mark.parametrize("dst", ["float32", "float16", "bfloat16", "float64"])
def test_cast_from_fp4_is_exact(dst, rng):
    M, N = 19, 512   # every byte value, rows that do not fill the tiles
    a = rng.integers(0, 256, size=(M, N // 2), dtype=np.uint8)
    a[0, :256] = np.arange(256)
    b, c = tilemlir.compile(dequantize_kernel(M, N, 16, 64, dst), out_idx=[1, 2],
                            target="cpu")(a)
    want = decode(unpack(a)).astype(T.dtype(dst).numpy)
    for got in (b, c):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_constants_and_element_copies():
    """Scalar stores of constants and of loaded elements, one nibble at a
    time (TileLang's scalar fp4 stores)."""
    @T.prim_func
    def k(A: T.Tensor((2, 8), T.float4_e2m1fn), B: T.Tensor((2, 8), T.float4_e2m1fn)):
        with T.Kernel(1, threads=1):
            B[0, 0] = T.float4_e2m1fn(-3.0)
            B[0, 1] = T.cast(2.7, T.float4_e2m1fn)
            B[0, 2] = T.cast(float("nan"), T.float4_e2m1fn)
            B[0, 3] = T.cast(-100.0, T.float4_e2m1fn)
            for j in T.serial(4):
                B[0, 4 + j] = A[1, 7 - j]
            for j in T.serial(8):
                B[1, j] = A[0, j]

    a = pack([[1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15, 0]])
    b = np.full((2, 4), 0xAA, dtype=np.uint8)
    tilemlir.compile(k, target="cpu")(a, b)
    assert unpack(b).tolist() == [[13, 5, 7, 15, 0, 15, 14, 13], [1, 2, 3, 4, 5, 6, 7, 8]]


# ---------------------------------------------------------- storage and views

def copy_kernel(M, N, bm, bn):
    @T.prim_func
    def k(A: T.Tensor((M, N), T.float4_e2m1fn), B: T.Tensor((M, N), T.float4_e2m1fn)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            s = T.alloc_shared((bm, bn), T.float4_e2m1fn)
            T.copy(A[by * bm, bx * bn], s)
            T.copy(s, B[by * bm, bx * bn])
    return k


def test_copy_through_shared_keeps_every_nibble(rng):
    M, N = 45, 98   # tiles over both edges; rows of 49 bytes
    a = rng.integers(0, 256, size=(M, N // 2), dtype=np.uint8)
    b = tilemlir.compile(copy_kernel(M, N, 16, 64), out_idx=[1], target="cpu")(a)
    np.testing.assert_array_equal(b, a)


def test_view_of_shared_fp4_as_bytes(rng):
    """A shared fp4 buffer written element by element, read as uint8."""
    R, K = 16, 64

    @T.prim_func
    def k(A: T.Tensor((R, K), T.bfloat16), B: T.Tensor((R, K // 2), T.uint8)):
        with T.Kernel(1, threads=128):
            f = T.alloc_fragment((R, K), T.bfloat16)
            s = T.alloc_shared((R, K), T.float4_e2m1fn)
            u = T.view(s, (R, K // 2), dtype=T.uint8)
            T.copy(A, f)
            for i, j in T.Parallel(R, K):
                s[i, j] = T.cast(f[i, j], T.float4_e2m1fn)
            T.copy(u, B)

    import ml_dtypes
    a = rng.uniform(-7, 7, size=(R, K)).astype(ml_dtypes.bfloat16)
    b = tilemlir.compile(k, out_idx=[1], target="cpu")(a)
    np.testing.assert_array_equal(b, pack(encode(a.astype(np.float64))))


def test_dynamic_shapes_bind_the_element_extent(rng):
    """A dynamic innermost extent is twice the bytes' extent."""
    n = T.dynamic("n")

    @T.prim_func
    def k(A: T.Tensor((4, n), T.float4_e2m1fn), B: T.Tensor((4, n), T.float32)):
        with T.Kernel(T.ceildiv(n, 32), threads=32) as bx:
            for i, j in T.Parallel(4, 32):
                if bx * 32 + j < n:
                    B[i, bx * 32 + j] = T.cast(A[i, bx * 32 + j], T.float32)

    kernel = tilemlir.compile(k, out_idx=[1], target="cpu")
    for cols in (6, 40, 77):
        a = rng.integers(0, 256, size=(4, cols), dtype=np.uint8)
        b = kernel(a)
        assert b.shape == (4, 2 * cols)
        np.testing.assert_array_equal(b, decode(unpack(a)))


# --------------------------------------------------------------- concurrency

def test_neighbouring_nibbles_written_by_different_blocks(rng):
    """Blocks run in parallel on the CPU (OpenMP): block b writes element b,
    so two blocks write the two halves of each byte at once. The stores are
    atomics on the byte; a plain read-modify-write would lose nibbles."""
    N = 1 << 14

    @T.prim_func
    def k(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float4_e2m1fn)):
        with T.Kernel(N, threads=1) as bx:
            B[bx] = T.cast(A[bx], T.float4_e2m1fn)

    kernel = tilemlir.compile(k, out_idx=[1], target="cpu")
    a = rng.uniform(-6, 6, size=N).astype(np.float32)
    want = pack(encode(a))
    for _ in range(5):
        np.testing.assert_array_equal(kernel(a), want)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_gpu_stores_are_byte_atomics(arch):
    """On NVIDIA GPUs a nibble store to global or shared memory is an atomic
    and / or on its (32-bit) word; loads are byte loads and shifts; the
    conversions are integer code (no fp4 instruction before sm_100)."""
    k = tilemlir.compile(quantize_kernel(64, 64, 16, 32, "float16"),
                         target=f"cuda -arch={arch}")
    ptx = k.get_kernel_source()
    assert "atom.global.and.b32" in ptx and "atom.global.or.b32" in ptx, ptx
    assert "e2m1" not in ptx
    k = tilemlir.compile(copy_kernel(64, 128, 16, 64), target=f"cuda -arch={arch}")
    ptx = k.get_kernel_source()
    assert "atom.shared.and.b32" in ptx and "atom.shared.or.b32" in ptx, ptx
    assert any(f"ld.global.{w}8" in ptx for w in ("u", "b", "nc.u", "nc.b")), ptx


# ------------------------------------------------------------------- errors

def test_odd_innermost_extent_is_located():
    with pytest.raises(TileCompileError) as e:
        @T.prim_func
        def k(A: T.Tensor((4, 7), T.float4_e2m1fn)):  # <odd-tensor>
            with T.Kernel(1, threads=32):
                pass

        tilemlir.compile(k, target="cpu")
    assert_located(e, "odd-tensor", "odd innermost extent (7)", "two a byte", source=THIS_FILE)


def test_odd_shared_extent_is_located():
    @T.prim_func
    def k(A: T.Tensor((4, 8), T.float4_e2m1fn)):
        with T.Kernel(1, threads=32):
            s = T.alloc_shared((4, 5), T.float4_e2m1fn)  # <odd-shared>
            T.copy(A[0, 0], s)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, "odd-shared", "shared buffer of float4_e2m1fn", "(5)", source=THIS_FILE)


def test_host_arguments_are_the_bytes():
    kernel = tilemlir.compile(copy_kernel(8, 32, 8, 32), out_idx=[1], target="cpu")
    with pytest.raises(TypeError, match="two a byte: pass a uint8 or int8 array"):
        kernel(np.zeros((8, 32), np.float32))
    with pytest.raises(ValueError, match=r"stored in bytes of shape \(\.\.\., 32 / 2\)"):
        kernel(np.zeros((8, 32), np.uint8))
    out = kernel(np.zeros((8, 16), np.int8))
    assert out.shape == (8, 16) and out.dtype == np.uint8


def test_dtype_names_and_torch_storage():
    assert T.float4_e2m1fn.bits == 4 and T.float4_e2m1fn.storage_shape((3, 16)) == (3, 8)
    assert T.dtype("float4_e2m1fnx2") is T.float4_e2m1fnx2
    assert T.float4_e2m1fnx2.lanes == 2
    torch = pytest.importorskip("torch")
    if hasattr(torch, "float4_e2m1fn_x2"):
        assert T.float4_e2m1fn.as_torch() is torch.float4_e2m1fn_x2
        assert T.float4_e2m1fnx2.as_torch() is torch.float4_e2m1fn_x2
        assert T.dtype(torch.float4_e2m1fn_x2) is T.float4_e2m1fnx2
