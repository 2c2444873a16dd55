"""Tensor sizes written with arithmetic on a T.dynamic dimension
(T.Tensor((n * 4,), ...), (n + 1,), (n * 3 + 1,)), as in TileLang: the kernel
reads n back from the size, the runtime checks that the size has that form
and that every tensor agrees on n, and outputs and grids are sized from n."""

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T


def _zero_all(shape_of):
    n = T.dynamic("n")
    size = shape_of(n)

    @T.prim_func
    def kernel(A: T.Tensor((size,), "int32")):
        with T.Kernel(1) as _:
            for i in range(size):
                A[i] = 0
    return kernel


@pytest.mark.parametrize("shape_of, size", [(lambda n: n * 4, 16), (lambda n: n + 1, 16),
                                            (lambda n: n * 3 + 1, 16), (lambda n: 2 * n - 2, 16)])
def test_kernel_sees_every_element(shape_of, size):
    kernel = tilemlir.compile(_zero_all(shape_of), target="cpu")
    a = np.arange(size, dtype=np.int32) + 1
    kernel(a)
    assert not a.any()


def test_size_without_that_form_is_refused():
    kernel = tilemlir.compile(_zero_all(lambda n: n * 4), target="cpu")
    with pytest.raises(ValueError, match=r"'A' has a dimension of size 15, which is n \* 4 for "
                                         r"no size of 'n'"):
        kernel(np.zeros(15, np.int32))
    kernel = tilemlir.compile(_zero_all(lambda n: n + 3), target="cpu")
    with pytest.raises(ValueError, match=r"size 2, which is n \+ 3 for no size"):
        kernel(np.zeros(2, np.int32))


def test_tensors_must_agree_on_the_dimension():
    n = T.dynamic("n")

    @T.prim_func
    def pad(A: T.Tensor((n, 2), "float32"), B: T.Tensor((n + 1, 2), "float32")):
        with T.Kernel(1) as _:
            for i in range(n):
                for j in range(2):
                    B[i + 1, j] = A[i, j]

    kernel = tilemlir.compile(pad, target="cpu")
    a = np.arange(10, dtype=np.float32).reshape(5, 2)
    b = np.zeros((6, 2), np.float32)
    kernel(a, b)
    np.testing.assert_array_equal(b[1:], a)
    with pytest.raises(ValueError, match=r"dynamic dimension 'n' is 5 elsewhere, but a size of 7 "
                                         r"for n \+ 1 in argument 'B' makes it 6"):
        kernel(a, np.zeros((7, 2), np.float32))


def test_output_sized_from_the_dimension():
    n = T.dynamic("n")

    @T.prim_func
    def double(A: T.Tensor((n,), "float32"), B: T.Tensor((n * 2,), "float32")):
        with T.Kernel(1) as _:
            for i in range(n):
                B[2 * i] = A[i]
                B[2 * i + 1] = A[i]

    kernel = tilemlir.compile(double, out_idx=[-1], target="cpu")
    assert kernel.params[1]["shape"] == [{"var": "n", "mul": 2, "add": 0}]
    out = kernel(np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(out, [1, 1, 2, 2, 3, 3])


def test_the_dimension_read_back_from_a_size_alone():
    """No tensor has n plainly: the kernel computes it from the size."""
    n = T.dynamic("n")

    @T.prim_func
    def fill(A: T.Tensor((n * 3 + 1,), "int32")):
        with T.Kernel(1) as _:
            for i in range(n * 3 + 1):
                A[i] = n

    kernel = tilemlir.compile(fill, target="cpu")
    a = np.zeros(13, np.int32)
    kernel(a)
    np.testing.assert_array_equal(a, 4)


def test_arithmetic_that_is_not_linear_in_one_dimension_is_refused():
    n, m = T.dynamic("n"), T.dynamic("m")
    with pytest.raises(TypeError, match=r"takes integers \(a \* n \+ b\)"):
        n * m
    with pytest.raises(TypeError, match=r"must grow with n"):
        8 - n
    with pytest.raises(TypeError, match=r"takes integers"):
        n * 2.5


def test_cuda_bundle_binds_the_dimension_from_the_size():
    """The CUDA runtime checks sizes and computes the grid from n (a
    cross-compiled bundle, checked without a GPU)."""
    from test_cuda_runtime import FakeCudaArray
    n = T.dynamic("n")

    @T.prim_func
    def fill(A: T.Tensor((n * 4,), "float32"), B: T.Tensor((n, 4), "float32")):
        with T.Kernel(n, threads=32) as bx:
            for j in T.serial(4):
                A[bx * 4 + j] = B[bx, j]

    kernel = tilemlir.compile(fill, target="cuda -arch=sm_90a")
    rt = kernel.runtime
    assert rt.dynamic_dims == {"n"}
    dims = rt.check_args([FakeCudaArray((20,), "<f4", 0x7f0000000000),
                          FakeCudaArray((5, 4), "<f4", 0x7f0000100000)])
    assert dims == {"n": 5}
    assert rt.grid_dims(dims) == (5, 1, 1)
    with pytest.raises(ValueError, match=r"size 21, which is n \* 4 for no size"):
        rt.check_args([FakeCudaArray((21,), "<f4", 0x7f0000000000),
                       FakeCudaArray((5, 4), "<f4", 0x7f0000100000)])
