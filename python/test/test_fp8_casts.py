"""Conversions to and from float8_e4m3 (e4m3fn) and float8_e5m2, with
CUDA's semantics (what TileLang's casts compile to): round to nearest, ties
to even, saturation to the largest finite value, NaN kept. CPU runs against
ml_dtypes; the sm_90a and sm_80 forms checked in their PTX."""

import ml_dtypes
import numpy as np
import pytest

import tilemlir
import tilemlir.language as T

FORMATS = {
    "float8_e4m3": (ml_dtypes.float8_e4m3fn, 448.0, 2.0 ** -9),
    "float8_e5m2": (ml_dtypes.float8_e5m2, 57344.0, 2.0 ** -16),
}


def expected_codes(x, dtype):
    """The bytes CUDA's satfinite conversion gives: ml_dtypes rounds to
    nearest even; clipping first saturates (NaN passes the clip)."""
    np_type, biggest, _ = FORMATS[dtype]
    return np.clip(x, -biggest, biggest).astype(np_type).view(np.uint8)


def probe_values(dtype):
    """Random values over the whole range, the subnormals and their ties,
    the saturation boundary and the special values."""
    _, biggest, tiny = FORMATS[dtype]
    rng = np.random.default_rng(7)
    spread = rng.standard_normal(400) * np.exp2(rng.uniform(-20, 18, 400))
    ties = np.arange(-12, 13) * (tiny / 2)
    edges = [0.0, -0.0, biggest, -biggest, biggest * 1.03, biggest * 1.07, biggest * 4,
             1e30, -1e30, np.inf, -np.inf, np.nan, tiny, tiny * 0.49, tiny * 0.51,
             1.0 + 1 / 16, 1.0 + 3 / 16, 2.0 ** -6 * 0.9375]
    return np.concatenate([spread, ties, edges]).astype(np.float32)


def round_trip(dtype, src="float32"):
    n = len(probe_values(dtype))

    @T.prim_func
    def convert(A: T.Tensor((n,), src), B: T.Tensor((n,), dtype), C: T.Tensor((n,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(n):
                B[i] = T.cast(A[i], dtype)
            for i in T.Parallel(n):
                C[i] = T.cast(B[i], "float32")

    return convert


def cast_kernel(n, src, dst, block=64):
    """B = T.cast(A, dst) over n elements in blocks of `block` (the last one
    partial where n is not a multiple)."""

    @T.prim_func
    def cast(A: T.Tensor((n,), src), B: T.Tensor((n,), dst)):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = T.cast(A[bx * block + i], dst)

    return cast


@pytest.mark.parametrize("dtype", list(FORMATS))
def test_cpu_conversions_match_cuda_semantics(dtype):
    x = probe_values(dtype)
    kernel = tilemlir.compile(round_trip(dtype), out_idx=[1, 2], target="cpu")
    codes, back = kernel(x)
    codes = np.asarray(codes).view(np.uint8)
    want = expected_codes(x, dtype)
    nan = np.isnan(x)
    np.testing.assert_array_equal(codes[~nan], want[~nan])
    assert np.all((codes[nan] & 0x7F) == 0x7F)
    np.testing.assert_array_equal(np.asarray(back)[~nan],
                                  want[~nan].view(FORMATS[dtype][0]).astype(np.float32))
    assert np.all(np.isnan(np.asarray(back)[nan]))


@pytest.mark.parametrize("src", ["float16", "bfloat16", "float64"])
def test_cpu_conversions_from_other_floats(src):
    x = probe_values("float8_e4m3")
    x = x[np.isfinite(x) & (np.abs(x) < 6e4)]
    np_src = {"bfloat16": ml_dtypes.bfloat16}.get(src, np.dtype(src))
    xs = x.astype(np_src)
    n = len(xs)

    @T.prim_func
    def convert(A: T.Tensor((n,), src), B: T.Tensor((n,), "float8_e4m3"),
                C: T.Tensor((n,), src)):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(n):
                B[i] = T.cast(A[i], "float8_e4m3")
            for i in T.Parallel(n):
                C[i] = T.cast(B[i], src)

    codes, back = tilemlir.compile(convert, out_idx=[1, 2], target="cpu")(xs)
    want = expected_codes(xs.astype(np.float32), "float8_e4m3")
    np.testing.assert_array_equal(np.asarray(codes).view(np.uint8), want)
    np.testing.assert_array_equal(np.asarray(back).astype(np.float32),
                                  want.view(ml_dtypes.float8_e4m3fn).astype(np.float32))


def test_cpu_arithmetic_and_integers_on_fp8():
    n = 64

    @T.prim_func
    def mixed(A: T.Tensor((n,), "float8_e5m2"), I: T.Tensor((n,), "int32"),
              B: T.Tensor((n,), "float8_e5m2"), J: T.Tensor((n,), "int32")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(n):
                B[i] = T.max(A[i] + A[i], T.cast(I[i], "float8_e5m2"))
                J[i] = T.cast(A[i], "int32")

    rng = np.random.default_rng(3)
    a = (rng.standard_normal(n) * 40).astype(ml_dtypes.float8_e5m2)
    ints = rng.integers(-300, 300, n).astype(np.int32)
    b, j = tilemlir.compile(mixed, out_idx=[2, 3], target="cpu")(a, ints)
    twice = (a.astype(np.float32) * 2).astype(ml_dtypes.float8_e5m2).astype(np.float32)
    from_int = ints.astype(np.float32).astype(ml_dtypes.float8_e5m2).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(b).astype(np.float32), np.maximum(twice, from_int))
    np.testing.assert_array_equal(np.asarray(j), a.astype(np.float32).astype(np.int32))


def test_sm90a_uses_the_cvt_instructions():
    kernel = tilemlir.compile(round_trip("float8_e4m3"), out_idx=[1, 2],
                              target="cuda -arch=sm_90a")
    ptx = kernel.get_kernel_source()
    assert "cvt.rn.satfinite.e4m3x2.f32" in ptx
    assert "cvt.rn.f16x2.e4m3x2" in ptx


def test_sm80_converts_in_integer_code():
    kernel = tilemlir.compile(round_trip("float8_e5m2"), out_idx=[1, 2],
                              target="cuda -arch=sm_80")
    ptx = kernel.get_kernel_source()
    assert "e5m2" not in ptx
    assert ".version" in ptx


@pytest.mark.parametrize("dtype", list(FORMATS))
def test_cpu_every_code_decodes(dtype):
    codes = np.arange(256, dtype=np.uint8).view(FORMATS[dtype][0])
    got = tilemlir.compile(cast_kernel(256, dtype, "float32"), out_idx=[1], target="cpu")(codes)
    np.testing.assert_array_equal(got, codes.astype(np.float32))
