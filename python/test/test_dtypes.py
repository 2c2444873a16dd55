"""TileLang's dtype names as TileLang programs use them: the class T.dtype,
C aliases, unsigned and vector names, the helpers of language.dtypes; names
kernels cannot hold in buffers are located errors."""

import inspect

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError
from tilemlir.language import dtypes

THIS_FILE = inspect.getsourcefile(lambda: None)


def test_dtype_class_constructs_the_one_object_of_a_type():
    assert T.dtype("float16") is T.float16
    assert T.dtype(T.bfloat16) is T.bfloat16
    assert T.dtype("float") is T.float32
    assert T.dtype(np.float16) is T.float16
    assert T.dtype(float) is T.float32 and T.dtype(int) is T.int32 and T.dtype(bool) is T.bool
    assert isinstance(T.float8_e4m3fn, T.dtype)
    assert T.dtype("float16").bits == 16 and T.float32.bytes == 4


def test_dtype_annotation_default_is_usable_as_a_kernel_dtype():
    def factory(n, dtype: T.dtype = T.float16):
        @T.prim_func
        def k(A: T.Tensor((n,), dtype), B: T.Tensor((n,), dtype)):
            with T.Kernel(1, threads=32):
                for i in T.Parallel(n):
                    B[i] = A[i] * T.dtype(dtype)(2)
        return k

    a = np.arange(8, dtype=np.float16)
    b = tilemlir.compile(factory(8), out_idx=[-1], target="cpu")(a)
    np.testing.assert_array_equal(b, a * 2)


def test_dtype_is_its_name_as_a_string():
    """As in TileLang, a dtype is a str: programs write getattr(torch, dtype)."""
    assert isinstance(T.float16, str) and T.float16 == "float16"
    assert getattr(np, T.float32) is np.float32
    import json
    import pickle
    assert json.loads(json.dumps({"d": T.int8})) == {"d": "int8"}
    assert pickle.loads(pickle.dumps(T.bfloat16)) is T.bfloat16
    assert T.float32 == "float" and not (T.float32 != "float")


def test_aliases_keep_signedness_apart():
    assert T.uint is T.uint32 and T.int is T.int32
    assert T.uint != T.int and T.uint8 != T.int8
    assert T.short is T.int16 and T.long is T.int64
    assert T.int in [T.int, T.uint] and T.uint32 in [T.int, T.uint]
    assert T.int32 == "int32" and {"float16": 1}[T.float16] == 1


def test_unsigned_tensor_round_trip():
    @T.prim_func
    def k(A: T.Tensor((64,), T.uint16), B: T.Tensor((64,), T.uint16)):
        with T.Kernel(1, threads=32):
            for i in T.Parallel(64):
                B[i] = A[i]

    a = np.arange(60000, 60064, dtype=np.uint16)
    np.testing.assert_array_equal(tilemlir.compile(k, out_idx=[-1], target="cpu")(a), a)


def test_vector_and_variant_names():
    assert T.float32x2.lanes == 2 and T.float32x2.bits == 32
    assert T.dtype("float16x4").lanes == 4
    assert T.float8_e4m3fn is T.float8_e4m3
    for name in ("float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "int4", "uint4",
                 "float4_e2m1fn", "handle"):
        assert str(getattr(T, name)) == name
    assert dtypes.is_float4(T.float4_e2m1fn) and not dtypes.is_float4("float16")
    assert "float32x2" in dtypes._all_dtypes and "uint" in dtypes._all_dtypes


def test_torch_tables_and_storage():
    torch = pytest.importorskip("torch")
    from tilemlir.language.dtypes import _TORCH_DTYPE_TO_STR, resolve_torch_storage_dtype
    assert _TORCH_DTYPE_TO_STR[torch.float16] == "float16"
    assert _TORCH_DTYPE_TO_STR[torch.float8_e4m3fn] == "float8_e4m3"
    assert T.dtype(torch.bfloat16) is T.bfloat16
    assert T.float8_e4m3.as_torch() is torch.float8_e4m3fn
    assert resolve_torch_storage_dtype(T.int4) is T.int8


def test_vector_dtype_buffer_is_a_located_error():
    @T.prim_func
    def k(A: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=32):
            s = T.alloc_shared((32,), T.float32x2)  # <vector-buffer>
            T.copy(A[0], s)

    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(k, target="cpu")
    assert_located(e, "vector-buffer", "float32x2", "last dimension of 2", source=THIS_FILE)


def test_four_bit_tensor_is_a_located_error():
    def factory():
        @T.prim_func
        def k(A: T.Tensor((64,), T.int4)):  # <int4-tensor>
            with T.Kernel(1, threads=32):
                pass
        return k

    with pytest.raises(TileCompileError) as e:
        factory()
    assert_located(e, "int4-tensor", "int4", "4-bit", source=THIS_FILE)



def test_tensor_subscript_takes_any_dtype_form():
    # T.Tensor[(shape), dtype] with the dtype as a name, a T. dtype, or a
    # numpy (or torch) dtype, as TileLang's tests write it.
    import numpy as np
    for dt in ("uint8", T.uint8, np.uint8, np.dtype("uint8")):
        spec = T.Tensor[(64,), dt]
        assert spec.shape == (64,) and spec.dtype == T.uint8
    assert T.Tensor[[4, 8], np.float16].shape == (4, 8)
    assert T.Tensor[64, "float32"].shape == (64,)
