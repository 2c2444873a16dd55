"""T.reshape / T.view of global tensors (the same memory with another
shape of as many elements) on the CPU against numpy; what they do not take
is a located error."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def views_kernel():
    @T.prim_func
    def k(A: T.Tensor((8, 16), "float16"), B: T.Tensor((4, 32), "float16"),
          C: T.Tensor((32, 4), "float16")):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((4, 32), "float16")
            T.copy(T.reshape(A, (4, 32)), s)
            flat = T.view(B, [128])
            for i in T.Parallel(128):
                flat[i] = s[i // 32, i % 32] * 2
            T.copy(T.view(A), T.reshape(C, (8, 16)))
    return k


def test_view_and_reshape_of_global_tensors():
    k = views_kernel()
    a = np.arange(128, dtype=np.float16).reshape(8, 16)
    b, c = tilemlir.compile(k, out_idx=[1, 2], target="cpu")(a)
    np.testing.assert_array_equal(b, (a * 2).reshape(4, 32))
    np.testing.assert_array_equal(c, a.reshape(32, 4))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_views_compile_for_cuda(arch):
    src = tilemlir.compile(views_kernel(), out_idx=[1, 2],
                           target=f"cuda -arch={arch}").get_kernel_source()
    assert "ld.global" in src and "st.global" in src


def test_view_size_mismatch_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((1024,), "float32"), B: T.Tensor((32, 33), "float32")):
        with T.Kernel(1, threads=128):
            T.copy(T.view(A, [32, 33]), B)  # <size>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "size", "'A'", "32x33", "sizes must match", source=THIS_FILE)


def test_view_to_another_dtype_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((1024,), "float32"), B: T.Tensor((32, 64), "float16")):
        with T.Kernel(1, threads=128):
            T.copy(T.view(A, [32, 64], dtype="float16"), B)  # <dtype>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "dtype", "float32 to float16", "not supported yet", source=THIS_FILE)


def test_reshape_of_a_shared_buffer_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((8, 8), "float32")
            r = T.reshape(s, [64])  # <shared>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "shared", "shared buffer 's'", "not supported yet", source=THIS_FILE)
