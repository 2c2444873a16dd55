"""Forms TileLang's own programs use, checked on the cpu target against
numpy: comprehensions over Python values inside a kernel, and copies of
slices whose start is known only when the kernel runs."""

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

from conftest import marked_line


def test_copy_of_a_slice_with_a_start_loaded_from_a_tensor():
    """X[s : s + 8] with s read from a tensor (an int32): the extent is 8."""
    @T.prim_func
    def gather(X: T.Tensor((40, 4), "float32"), starts: T.Tensor((3,), "int32"),
               Y: T.Tensor((3, 8, 4), "float32")):
        with T.Kernel(3, threads=32) as bz:
            s = starts[bz]
            S = T.alloc_shared((8, 4), "float32")
            T.copy(X[s + bz * 2: s + bz * 2 + 8, :], S)
            T.copy(S, Y[bz, :, :])

    kernel = tilemlir.compile(gather, out_idx=[-1], target="cpu")
    x = np.arange(160, dtype=np.float32).reshape(40, 4)
    starts = np.array([0, 5, 20], np.int32)
    y = kernel(x, starts)
    for b in range(3):
        np.testing.assert_array_equal(y[b], x[starts[b] + 2 * b: starts[b] + 2 * b + 8])


def test_slice_whose_extent_depends_on_a_loaded_value_is_refused():
    @T.prim_func
    def bad(X: T.Tensor((40, 4), "float32"), n: T.Tensor((1,), "int32"),
            Y: T.Tensor((8, 4), "float32")):
        with T.Kernel(1, threads=32) as bx:
            T.copy(X[0: n[0], :], Y)  # <slice-loaded-extent>

    with pytest.raises(TileCompileError, match="extent of slice 0 of 'X' must be a positive "
                                               "compile-time constant") as e:
        tilemlir.compile(bad, target="cpu")
    assert e.value.lineno == marked_line(__file__, "slice-loaded-extent")


SIZES = [3, 1, 4, 6]


def test_comprehensions_over_python_values():
    """sum(... for ...) and [... for ... if ...] over a Python list, as in
    TileLang's grouped GEMM (its grid is a sum over the group sizes)."""
    @T.prim_func
    def k(A: T.Tensor((16,), "float32")):
        with T.Kernel(sum((n + 1) // 2 for n in SIZES if n > 1), threads=32) as bx:
            offsets = [sum(SIZES[j] for j in range(i)) for i in range(len(SIZES))]
            A[bx] = T.float32(offsets[2] + max(a * b for a in SIZES for b in (1, 2)))

    kernel = tilemlir.compile(k, target="cpu")
    a = np.zeros(16, np.float32)
    kernel(a)
    blocks = sum((n + 1) // 2 for n in SIZES if n > 1)
    assert blocks == 7
    np.testing.assert_array_equal(a[:blocks], 4 + 12)
    assert not a[blocks:].any()


def test_comprehension_elements_may_be_kernel_values():
    @T.prim_func
    def k(X: T.Tensor((4,), "float32"), Y: T.Tensor((1,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            Y[0] = sum(X[i] * (i + 1) for i in range(4))

    kernel = tilemlir.compile(k, out_idx=[-1], target="cpu")
    x = np.array([1, 2, 3, 4], np.float32)
    np.testing.assert_array_equal(kernel(x), [30.0])


def test_comprehension_over_a_kernel_value_is_a_located_error():
    @T.prim_func
    def k(X: T.Tensor((4,), "float32")):
        with T.Kernel(4, threads=32) as bx:
            X[0] = sum(i for i in bx)  # <comp-over-kernel-value>

    with pytest.raises(TileCompileError, match="iterates over Python values") as e:
        tilemlir.compile(k, target="cpu")
    assert e.value.lineno == marked_line(__file__, "comp-over-kernel-value")


def test_comprehension_condition_on_a_kernel_value_is_a_located_error():
    @T.prim_func
    def k(X: T.Tensor((4,), "float32")):
        with T.Kernel(4, threads=32) as bx:
            X[0] = T.float32(sum(1 for i in range(4) if i < bx))  # <comp-kernel-cond>

    with pytest.raises(TileCompileError, match="condition must be known") as e:
        tilemlir.compile(k, target="cpu")
    assert e.value.lineno == marked_line(__file__, "comp-kernel-cond")


def test_lower_returns_the_compiled_artifact():
    @T.prim_func
    def k(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(8):
                B[i] = A[i] * 2.0

    artifact = tilemlir.lower(k, target="cpu")
    assert "define" in artifact.kernel_source  # LLVM IR on the cpu target
    assert "tile.kernel" in artifact.device_mod
    assert [p["name"] for p in artifact.params] == ["A", "B"]
    assert artifact.target == "cpu" and artifact.host_mod is None
    with pytest.raises(TypeError, match="expects a @T.prim_func"):
        tilemlir.lower(lambda: None, target="cpu")


def test_atomic_add_of_a_tile_into_a_region_with_unit_dims():
    """T.atomic_add(dV[b, i:i+8, h, :], tile) with a 2-d tile, as TileLang's
    flash-attention backward adds dK and dV."""
    @T.prim_func
    def k(X: T.Tensor((16, 4), "float32"), dV: T.Tensor((2, 16, 3, 4), "float32")):
        with T.Kernel(2, 2, threads=32) as (bx, b):
            S = T.alloc_shared((8, 4), "float32")
            T.copy(X[bx * 8:(bx + 1) * 8, :], S)
            T.atomic_add(dV[b, bx * 8:(bx + 1) * 8, 1, :], S)

    kernel = tilemlir.compile(k, target="cpu")
    x = np.arange(64, dtype=np.float32).reshape(16, 4)
    dv = np.ones((2, 16, 3, 4), np.float32)
    kernel(x, dv)
    kernel(x, dv)
    want = np.ones((2, 16, 3, 4), np.float32)
    want[:, :, 1, :] += 2 * x
    np.testing.assert_array_equal(dv, want)
