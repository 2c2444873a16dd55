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


def test_reshape_of_a_fragment_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128):
            f = T.alloc_fragment((8, 8), "float32")
            r = T.reshape(f, [64])  # <fragment>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "fragment", "fragment buffer 'f'", "not supported yet", source=THIS_FILE)


def shared_views_kernel():
    """Writes a shared f32 tile, reads it through a bf16 view (narrowing), an
    int8 view of a 3-d f16 buffer, and a reshape; writes through a view."""
    @T.prim_func
    def k(A: T.Tensor((16, 16), "float32"), H: T.Tensor((2, 8, 16), "float16"),
          Bf: T.Tensor((16, 32), "bfloat16"), I8: T.Tensor((2, 8, 32), "int8"),
          Flat: T.Tensor((256,), "float32"), Back: T.Tensor((16, 8), "float32")):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((16, 16), "float32")
            T.copy(A, s)
            T.copy(T.view(s, (16, 32), dtype="bfloat16"), Bf)
            T.copy(T.reshape(s, [256]), Flat)
            h = T.alloc_shared((2, 8, 16), "float16")
            T.copy(H, h)
            T.copy(T.view(h, dtype="int8"), I8)
            w = T.alloc_shared((16, 16), "bfloat16")
            wide = T.view(w, dtype="float32")
            for i, j in T.Parallel(16, 16):
                w[i, j] = T.cast(A[i, j], "bfloat16")
            T.copy(wide, Back)
    return k


def test_views_of_shared_buffers_on_cpu(rng):
    a = rng.standard_normal((16, 16)).astype(np.float32)
    h = rng.standard_normal((2, 8, 16)).astype(np.float16)
    bf, i8, flat, back = tilemlir.compile(shared_views_kernel(), out_idx=[2, 3, 4, 5],
                                          target="cpu")(a, h)
    np.testing.assert_array_equal(bf.view(np.uint16), a.view(np.uint16).reshape(16, 32))
    np.testing.assert_array_equal(i8, h.view(np.int8).reshape(2, 8, 32))
    np.testing.assert_array_equal(flat, a.reshape(256))
    # The bf16 tile read back as f32: two round-to-nearest-even bf16 a word.
    u = a.view(np.uint32)
    bf16 = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(back.view(np.uint16).reshape(16, 16), bf16)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_shared_views_compile_for_cuda(arch):
    src = tilemlir.compile(shared_views_kernel(), out_idx=[2, 3, 4, 5],
                           target=f"cuda -arch={arch}").get_kernel_source()
    assert "st.shared" in src and "ld.shared" in src


def test_shared_view_of_another_byte_size_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((8, 8), "float32")
            v = T.view(s, (8, 8), dtype="float16")  # <bytes>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "bytes", "'s'", "8x8 float16", "sizes must match", source=THIS_FILE)


def test_dtype_view_whose_last_dimension_does_not_divide_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=128):
            s = T.alloc_shared((8, 3), "float16")
            v = T.view(s, dtype="float32")  # <divide>

    with pytest.raises(TileCompileError) as e:
        k.script()
    assert_located(e, "divide", "48 bits are not a whole number of 32-bit elements",
                   source=THIS_FILE)
