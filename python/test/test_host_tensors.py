"""The cpu target takes CPU torch tensors where it takes numpy arrays: used
in place through their data pointer, checked for dtype, shape and layout,
and outputs made as torch tensors when the inputs are torch tensors.

The torch tests skip where torch is not installed; the same path runs in
every venv through HostTensor, a small object with torch's tensor protocol
(data_ptr, stride, element_size, shape, dtype, device) over a numpy array."""

import ml_dtypes
import numpy as np
import pytest

import tilemlir
import tilemlir.language as T


class _Device:
    def __init__(self, kind):
        self.type = kind

    def __str__(self):
        return self.type


class HostTensor:
    """Torch's tensor protocol over a numpy array (strides in elements)."""

    def __init__(self, array, strides=None, device="cpu", dtype=None):
        self.array = array
        self.shape = array.shape
        self.dtype = dtype or str(array.dtype)
        self.device = _Device(device)
        self._strides = strides or tuple(s // array.itemsize for s in array.strides)

    def data_ptr(self):
        return self.array.ctypes.data

    def stride(self):
        return self._strides

    def element_size(self):
        return self.array.itemsize


def _add_func(dtype="float32"):
    @T.prim_func
    def add(A: T.Tensor((4, 8), dtype), B: T.Tensor((4, 8), dtype), C: T.Tensor((4, 8), dtype)):
        with T.Kernel(1) as bx:
            for i, j in T.Parallel(4, 8):
                C[i, j] = A[i, j] + B[i, j]
    return add


@pytest.fixture(scope="module")
def add_kernel():
    return tilemlir.compile(_add_func(), out_idx=[-1], target="cpu")


@pytest.fixture(scope="module")
def add_in_place():
    return tilemlir.compile(_add_func(), target="cpu")


def test_protocol_object_is_read_and_written_in_place(add_in_place):
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    b = np.full((4, 8), 2.0, np.float32)
    c = np.zeros((4, 8), np.float32)
    add_in_place(HostTensor(a), HostTensor(b), HostTensor(c))
    np.testing.assert_array_equal(c, a + b)


def test_protocol_object_inputs_give_numpy_outputs(add_kernel):
    a = np.ones((4, 8), np.float32)
    out = add_kernel(HostTensor(a), HostTensor(a))
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, 2 * a)


def test_protocol_object_wrong_dtype(add_kernel):
    a = np.ones((4, 8), np.float32)
    with pytest.raises(TypeError, match=r"'B' must have dtype float32, got float64"):
        add_kernel(HostTensor(a), HostTensor(np.ones((4, 8))))


def test_protocol_object_on_another_device(add_kernel):
    a = np.ones((4, 8), np.float32)
    with pytest.raises(TypeError, match=r"'A' is a tensor on cuda.*\.cpu\(\)"):
        add_kernel(HostTensor(a, device="cuda"), HostTensor(a))


def test_protocol_object_not_contiguous(add_kernel):
    a = np.ones((4, 8), np.float32)
    with pytest.raises(ValueError, match=r"'A' must be C-contiguous.*\.contiguous\(\)"):
        add_kernel(HostTensor(a, strides=(1, 4)), HostTensor(a))


def test_protocol_object_wrong_shape(add_kernel):
    a = np.ones((4, 8), np.float32)
    with pytest.raises(ValueError, match=r"'B' must have shape \(4, 8\), got \(8, 4\)"):
        add_kernel(HostTensor(a), HostTensor(np.ones((8, 4), np.float32)))


def test_protocol_objects_that_overlap_are_refused(add_in_place):
    a = np.ones((4, 8), np.float32)
    with pytest.raises(ValueError, match=r"overlap"):
        add_in_place(HostTensor(a), HostTensor(a), HostTensor(a))


def test_something_else_is_refused_by_name(add_kernel):
    with pytest.raises(TypeError, match=r"'A' must be a numpy array or a CPU torch tensor.*list"):
        add_kernel([[1.0] * 8] * 4, np.ones((4, 8), np.float32))


def test_protocol_object_torch_dtype_names(add_in_place):
    """torch spells dtypes "torch.float32": the name after the dot counts."""
    a = np.ones((4, 8), np.float32)
    c = np.zeros((4, 8), np.float32)
    add_in_place(HostTensor(a, dtype="torch.float32"), HostTensor(a, dtype="torch.float32"),
                 HostTensor(c, dtype="torch.float32"))
    np.testing.assert_array_equal(c, 2 * a)


# ------------------------------------------------------------------ torch

def _torch():
    return pytest.importorskip("torch")


def test_torch_inputs_give_torch_outputs(add_kernel):
    torch = _torch()
    a = torch.arange(32, dtype=torch.float32).reshape(4, 8)
    b = torch.ones(4, 8)
    out = add_kernel(a, b)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float32
    torch.testing.assert_close(out, a + b)


def test_torch_tensor_written_in_place(add_in_place):
    torch = _torch()
    a, b = torch.ones(4, 8), torch.full((4, 8), 3.0)
    c = torch.zeros(4, 8)
    before = c.data_ptr()
    add_in_place(a, b, c)
    assert c.data_ptr() == before
    torch.testing.assert_close(c, a + b)


def test_torch_not_contiguous_is_refused(add_kernel):
    torch = _torch()
    a = torch.ones(8, 4).t()
    with pytest.raises(ValueError, match=r"'A' must be C-contiguous"):
        add_kernel(a, torch.ones(4, 8))


def test_torch_leaf_that_requires_grad_is_not_written(add_in_place):
    torch = _torch()
    c = torch.zeros(4, 8, requires_grad=True)
    with pytest.raises(ValueError, match=r"'C' is read-only \(a leaf torch tensor"):
        add_in_place(torch.ones(4, 8), torch.ones(4, 8), c)


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_torch_narrow_float_dtypes(name):
    torch = _torch()
    dtype = {"float8_e4m3fn": "float8_e4m3"}.get(name, name)

    @T.prim_func
    def copy(A: T.Tensor((4, 8), dtype), B: T.Tensor((4, 8), dtype)):
        with T.Kernel(1) as bx:
            for i, j in T.Parallel(4, 8):
                B[i, j] = A[i, j]

    kernel = tilemlir.compile(copy, out_idx=[-1], target="cpu")
    a = (torch.arange(32, dtype=torch.float32).reshape(4, 8) / 4).to(getattr(torch, name))
    out = kernel(a)
    assert out.dtype == getattr(torch, name)
    assert torch.equal(out.view(torch.uint8 if a.element_size() == 1 else torch.int16),
                       a.view(torch.uint8 if a.element_size() == 1 else torch.int16))
    with pytest.raises(TypeError, match=rf"'A' must have dtype {dtype}, got float32"):
        kernel(torch.ones(4, 8))


def test_numpy_bfloat16_still_taken():
    @T.prim_func
    def copy(A: T.Tensor((2, 4), "bfloat16"), B: T.Tensor((2, 4), "bfloat16")):
        with T.Kernel(1) as bx:
            for i, j in T.Parallel(2, 4):
                B[i, j] = A[i, j]

    kernel = tilemlir.compile(copy, out_idx=[-1], target="cpu")
    a = np.arange(8, dtype=np.float32).reshape(2, 4).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(kernel(a), a)


def test_cpu_call_reads_each_tensor_once(add_kernel, monkeypatch):
    # The runtime checks the arguments and launches from the same reading
    # of each tensor (it used to read every tensor twice a call).
    from tilemlir.runtime import cpu
    seen = []
    real = cpu._host_tensor

    def counting(name, a):
        seen.append(name)
        return real(name, a)
    monkeypatch.setattr(cpu, "_host_tensor", counting)
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    c = add_kernel(a, a)
    np.testing.assert_array_equal(c, 2 * a)
    assert sorted(seen) == ["A", "B", "C"]
    # The checks still fire.
    with pytest.raises(ValueError, match="'A' must have shape"):
        add_kernel(np.zeros((4, 7), np.float32), a)
    # launch() alone (arguments checked elsewhere) reads them itself.
    seen.clear()
    out = np.zeros((4, 8), np.float32)
    add_kernel.runtime.launch([a, a, out])
    np.testing.assert_array_equal(out, 2 * a)
    assert sorted(seen) == ["A", "B", "C"]
