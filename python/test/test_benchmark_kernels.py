"""The GPU benchmark's kernels (benchmark/gpu/kernels.py) are only timed on
the GPU machine; here every builder is compiled for the CPU at a small odd
shape and checked against numpy, so that a broken kernel is caught before a
bundle build."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import tilemlir

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "benchmark" / "gpu" / "kernels.py"


@pytest.fixture(scope="module")
def kernels():
    spec = importlib.util.spec_from_file_location("tilemlir_benchmark_kernels", KERNELS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def half(rng, shape):
    return rng.standard_normal(shape).astype(np.float16)


@pytest.mark.parametrize("options", [dict(), dict(trans_A=True, trans_B=True),
                                     dict(cluster=(2, 1), swizzle_panel=2),
                                     dict(persistent=3), dict(tma_store=False,
                                                              out_dtype="float32")])
def test_gemm(kernels, rng, options):
    M, N, K = 200, 136, 72
    ta, tb = options.get("trans_A", False), options.get("trans_B", False)
    k = tilemlir.compile(kernels.gemm(M, N, K, block_M=64, block_N=64, block_K=32,
                                      threads=128, num_stages=2, **options),
                         out_idx=[2], target="cpu")
    a = half(rng, (K, M) if ta else (M, K))
    b = half(rng, (N, K) if tb else (K, N))
    ref = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    np.testing.assert_allclose(k(a, b).astype(np.float64), ref, rtol=2e-2, atol=2e-1)


def test_gemm_rowmax(kernels, rng):
    M, N, K = 100, 136, 72
    k = tilemlir.compile(kernels.gemm_rowmax(M, N, K), out_idx=[2], target="cpu")
    a, b = half(rng, (M, K)), half(rng, (K, N))
    c = a.astype(np.float64) @ b.astype(np.float64)
    ref = np.stack([c[:, j:j + 64].max(axis=1) for j in range(0, N, 64)])
    np.testing.assert_allclose(k(a, b), ref, rtol=2e-2, atol=2e-1)


def test_gemm_sp(kernels, rng):
    M, N, K = 128, 136, 128
    values, meta, dense = kernels.make_sparse(M, K, rng)
    k = tilemlir.compile(kernels.gemm_sp(M, N, K), out_idx=[3], target="cpu")
    b = half(rng, (K, N))
    np.testing.assert_allclose(k(values, meta, b).astype(np.float64),
                               dense.astype(np.float64) @ b.astype(np.float64),
                               rtol=2e-2, atol=2e-1)


def test_softmax_and_row_sum(kernels, rng):
    x = half(rng, (100, 64))
    y = tilemlir.compile(kernels.softmax(100, 64), out_idx=[1], target="cpu")(x)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-2, atol=1e-3)
    s = tilemlir.compile(kernels.row_sum(100, 64), out_idx=[1], target="cpu")(x)
    np.testing.assert_allclose(s, x.astype(np.float64).sum(axis=1), rtol=1e-2, atol=1e-2)
