"""The CUDA runtime (tilemlir.runtime.cuda) without a GPU: grid expressions,
argument checking and packing, launches and TMA descriptors through a fake
driver, structure layouts, the error when libcuda.so.1 is absent, and that
the runtime does not import the compiler. benchmark/gpu/smoke_cuda_runtime.py
runs it for real on a GPU."""

import ctypes
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import textwrap
import types

import pytest

from tilemlir.runtime import cuda, load_bundle

REPO = pathlib.Path(__file__).resolve().parents[2]
CUDA_H = pathlib.Path("/usr/local/cuda/include/cuda.h")
STUB_LIBCUDA = pathlib.Path("/usr/local/cuda/lib64/stubs/libcuda.so")


# --- Fakes -----------------------------------------------------------------------------------

class FakeDriver:
    """Stands in for cuda.Driver: records calls; reads each kernel parameter
    at launch with the sizes in `param_sizes` (as the real driver reads the
    sizes the kernel declares)."""

    def __init__(self, param_sizes=None, current=0, devices=None):
        self.param_sizes = param_sizes
        self.current = current
        self.devices = devices or {}     # context -> device
        self.calls = []
        self.launches = []
        self.encodes = []
        self.max_shared = 227 * 1024

    def init(self):
        self.calls.append(("init",))

    def device_get(self, ordinal):
        return ordinal

    def device_sm_count(self, dev):
        return 132 + dev

    def primary_context(self, ordinal):
        self.calls.append(("primary_context", ordinal))
        ctx = 0x1000 + ordinal
        self.devices[ctx] = ordinal
        return ctx

    def ctx_get_current(self):
        return self.current

    def ctx_set_current(self, ctx):
        self.calls.append(("ctx_set_current", ctx))
        self.current = ctx

    def ctx_get_device(self):
        return self.devices[self.current]

    def pointer_device(self, ptr):
        self.calls.append(("pointer_device", ptr))
        return 0

    def module_load_data(self, image, detail=""):
        self.calls.append(("module_load_data", bytes(image), self.current))
        return 0x2000

    def module_get_function(self, module, name):
        self.calls.append(("module_get_function", module, name))
        return 0x3000

    def module_unload(self, module):
        self.calls.append(("module_unload", module))

    def func_set_attribute(self, func, attr, value):
        self.calls.append(("func_set_attribute", func, attr, value))
        if value > self.max_shared:
            raise RuntimeError("cuFuncSetAttribute failed: CUDA_ERROR_INVALID_VALUE (1)")

    def _read_params(self, params):
        sizes = self.param_sizes or []
        return [ctypes.string_at(params[i], size) for i, size in enumerate(sizes)]

    def launch_kernel(self, func, grid, block, shared_bytes, stream, params):
        self.launches.append({"api": "cuLaunchKernel", "func": func, "grid": tuple(grid),
                              "block": tuple(block), "shared": shared_bytes, "stream": stream,
                              "params": self._read_params(params), "context": self.current})

    def launch_kernel_ex(self, config, func, params):
        attrs = [(config.attrs[i].id, (config.attrs[i].value.clusterDim.x,
                                       config.attrs[i].value.clusterDim.y,
                                       config.attrs[i].value.clusterDim.z))
                 for i in range(config.numAttrs)]
        self.launches.append({
            "api": "cuLaunchKernelEx", "func": func,
            "grid": (config.gridDimX, config.gridDimY, config.gridDimZ),
            "block": (config.blockDimX, config.blockDimY, config.blockDimZ),
            "shared": config.sharedMemBytes, "stream": config.hStream or 0, "attrs": attrs,
            "params": self._read_params(params), "context": self.current})

    def tensor_map_encode_tiled(self, tmap, dtype, rank, address, global_dim, global_strides,
                                box_dim, element_strides, interleave, swizzle, l2_promotion,
                                oob_fill):
        self.encodes.append({"dtype": dtype, "rank": rank, "address": address,
                             "dims": list(global_dim), "strides": list(global_strides),
                             "box": list(box_dim), "element_strides": list(element_strides),
                             "interleave": interleave, "swizzle": swizzle, "l2": l2_promotion,
                             "oob": oob_fill})
        tmap.opaque[0] = address
        tmap.opaque[1] = 0xC0FFEE
        tmap.opaque[15] = len(self.encodes)


class FakeCudaArray:
    """A device array as cupy or numba show it: __cuda_array_interface__."""

    def __init__(self, shape, typestr="<f4", ptr=0x7f0000000000, strides=None):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr,
                                         "data": (ptr, False), "strides": strides, "version": 3}


class FakeTorchTensor:
    def __init__(self, shape, dtype="float32", ptr=0x7f0000100000, device=("cuda", 0),
                 strides=None, contiguous=True):
        self.shape = tuple(shape)
        self.dtype = "torch." + dtype
        self.device = types.SimpleNamespace(type=device[0], index=device[1])
        self._ptr = ptr
        self._strides = strides or cuda._c_strides(self.shape)
        self._contiguous = contiguous

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def get_device(self):
        return self.device.index if self.is_cuda else -1

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._strides

    def is_contiguous(self):
        return self._contiguous

    requires_grad = False
    is_leaf = True

    def is_inference(self):
        return False


@pytest.fixture
def fake_torch(monkeypatch):
    streams = []
    mod = types.ModuleType("torch")
    mod.Tensor = FakeTorchTensor

    def current_stream(device=None):
        streams.append(device)
        return types.SimpleNamespace(cuda_stream=0x5EED)
    mod.cuda = types.SimpleNamespace(current_stream=current_stream, current_device=lambda: 0)
    mod.streams = streams
    monkeypatch.setitem(sys.modules, "torch", mod)
    return mod


@pytest.fixture(autouse=True)
def _no_torch_unless_asked(request, monkeypatch):
    # Without torch the runtime launches on the default stream (0).
    if "fake_torch" not in request.fixturenames:
        monkeypatch.delitem(sys.modules, "torch", raising=False)
    cuda.clear_tensor_map_cache()
    yield
    cuda.clear_tensor_map_cache()


def make_bundle(tmp_path, **overrides):
    meta = {
        "target": "cuda", "arch": "sm_90a", "binary": "kernel.ptx", "entry": "k",
        "params": [
            {"name": "A", "kind": "tensor", "dtype": "float16", "shape": ["M", 64]},
            {"name": "B", "kind": "tensor", "dtype": "float32", "shape": ["M", "N"]},
            {"name": "alpha", "kind": "scalar", "dtype": "float32"},
            {"name": "n", "kind": "scalar", "dtype": "int32"},
        ],
        "kernel_args": [
            {"kind": "ptr", "param": 0},
            {"kind": "ptr", "param": 1},
            {"kind": "dim", "param": 1, "dim": 0},
            {"kind": "dim", "param": 1, "dim": 1},
            {"kind": "stride", "param": 1, "dim": 0},
            {"kind": "scalar", "param": 2, "dtype": "float32"},
            {"kind": "scalar", "param": 3},
            {"kind": "scalar", "param": 3, "dtype": "int64"},
            {"kind": "scalar", "param": 2, "dtype": "float64"},
        ],
        "grid": ["(N + 127) // 128", "M // 2"],
        "block": [128, 1, 1],
        "shared_bytes": 1024,
    }
    meta.update(overrides)
    d = tmp_path / "bundle"
    d.mkdir(exist_ok=True)
    (d / "kernel.ptx").write_text(".version 8.0\n.target sm_90a\n.address_size 64\n")
    (d / "bundle.json").write_text(json.dumps(meta))
    return d, meta


def args_for(m=4, n=300, a_ptr=0x7f0000000000, b_ptr=0x7f0000200000):
    return [FakeCudaArray((m, 64), "<f2", a_ptr), FakeCudaArray((m, n), "<f4", b_ptr), 1.5, 7]


# --- Grid expressions -------------------------------------------------------------------------

@pytest.mark.parametrize("text, dims, want", [
    ("(N + 127) // 128", {"N": 1000}, 8),
    ("(N + 127) // 128", {"N": 1024}, 8),
    ("(N + 127) // 128", {"N": 1025}, 9),
    ("M * N // 4 - 1", {"M": 8, "N": 6}, 11),
    ("-(-N // 64)", {"N": 65}, 2),
    ("((M + 1) // 2) * (N - 3)", {"M": 5, "N": 10}, 21),
    ("132", {}, 132),
    (" N ", {"N": 3}, 3),
    (7, {}, 7),
])
def test_grid_expr_values(text, dims, want):
    assert cuda.GridExpr(text, set(dims))(dims) == want
    assert cuda.eval_grid_expr(text, dims) == want


@pytest.mark.parametrize("text, words", [
    ("max(N, 1)", "function call"),
    ("__import__('os').system('true')", "function call"),
    ("N.bit_length", "attribute"),
    ("(1).__class__", "attribute"),
    ("N[0]", "subscript"),
    ("N / 2", "'/'"),
    ("N ** 2", "'\\*\\*'"),
    ("N % 2", "'%'"),
    ("N < 4", "comparison"),
    ("N and 1", "'and'/'or'"),
    ("N if N else 1", "conditional"),
    ("(lambda: 1)", "lambda"),
    ("~N", "Invert"),
    ("N << 2", "LShift"),
    ("1.5 * N", "literal 1.5"),
    ("'N'", "literal 'N'"),
    ("True + N", "literal True"),
    ("N +", "does not parse"),
    ("N; 1", "does not parse"),
    ("X + 1", "'X', which is not a dynamic dimension"),
    ("__builtins__", "not a dynamic dimension"),
])
def test_grid_expr_rejects(text, words):
    with pytest.raises(ValueError, match=words):
        cuda.GridExpr(text, {"N", "M"})


def test_grid_expr_runtime_errors():
    e = cuda.GridExpr("N // M", {"N", "M"})
    with pytest.raises(ValueError, match="divides by zero"):
        e({"N": 4, "M": 0})
    with pytest.raises(ValueError, match="needs the dimension 'M'"):
        e({"N": 4})
    with pytest.raises(ValueError, match="not a dynamic dimension"):
        cuda.eval_grid_expr("N + K", {"N": 1})
    with pytest.raises(ValueError, match="string or an integer"):
        cuda.GridExpr(1.0)
    with pytest.raises(ValueError, match="nested too deeply|does not parse|longer"):
        cuda.GridExpr("(" * 500 + "N" + ")" * 500, {"N"})
    assert e.names == {"N", "M"}


def test_bundle_rejects_bad_grid(tmp_path):
    d, meta = make_bundle(tmp_path, grid=["K // 2"])
    with pytest.raises(ValueError, match="'K', which is not a dynamic dimension .*M, N"):
        cuda.CudaKernel(d, meta)
    d, meta = make_bundle(tmp_path, grid=["open('x')"])
    with pytest.raises(ValueError, match="function call"):
        cuda.CudaKernel(d, meta)
    d, meta = make_bundle(tmp_path, grid=[])
    with pytest.raises(ValueError, match="1 to 3"):
        cuda.CudaKernel(d, meta)


# --- Structures -------------------------------------------------------------------------------

def test_tensor_map_struct_size_and_alignment():
    assert ctypes.sizeof(cuda.CUtensorMap) == 128
    maps = [cuda.new_tensor_map() for _ in range(16)]
    for m in maps:
        assert ctypes.sizeof(m) == 128
        assert ctypes.addressof(m) % 64 == 0
        assert ctypes.addressof(m) % cuda.TENSOR_MAP_ALIGN == 0
        assert m.to_bytes() == bytes(128)
    if sys.version_info >= (3, 13):
        assert ctypes.alignment(cuda.CUtensorMap) == cuda.TENSOR_MAP_ALIGN


def test_launch_struct_layouts():
    assert ctypes.sizeof(cuda.CUlaunchAttributeValue) == 64
    assert ctypes.sizeof(cuda.CUlaunchAttribute) == 72
    assert cuda.CUlaunchAttribute.value.offset == 8
    assert ctypes.sizeof(cuda.CUlaunchConfig) == 56
    assert cuda.CUlaunchConfig.sharedMemBytes.offset == 24
    assert cuda.CUlaunchConfig.hStream.offset == 32
    assert cuda.CUlaunchConfig.attrs.offset == 40
    assert cuda.CUlaunchConfig.numAttrs.offset == 48


def test_make_launch_config():
    cfg, attrs = cuda.make_launch_config((4, 2, 1), (128, 1, 1), 65536, 0xABC, (2, 1, 1))
    assert (cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ) == (4, 2, 1)
    assert (cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ) == (128, 1, 1)
    assert cfg.sharedMemBytes == 65536 and cfg.hStream == 0xABC and cfg.numAttrs == 1
    a = cfg.attrs[0]
    assert a.id == cuda.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION == 4
    assert (a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z) == (2, 1, 1)
    raw = ctypes.string_at(ctypes.addressof(attrs), 72)
    assert struct.unpack_from("<i", raw, 0)[0] == 4
    assert struct.unpack_from("<III", raw, 8) == (2, 1, 1)
    cfg, attrs = cuda.make_launch_config((1, 1, 1), (32, 1, 1), 0, 0, None)
    assert cfg.numAttrs == 0 and attrs is None and not cfg.hStream


@pytest.mark.skipif(not CUDA_H.exists() or shutil.which("cc") is None,
                    reason="needs cuda.h and a C compiler")
def test_layouts_and_enums_match_cuda_h(tmp_path):
    """Compiles a C program against the installed cuda.h and compares."""
    src = tmp_path / "layout.c"
    src.write_text(textwrap.dedent("""
        #include <cuda.h>
        #include <stddef.h>
        #include <stdio.h>
        int main(void) {
          printf("%zu %zu %zu %zu %zu %zu %zu %zu\\n", sizeof(CUtensorMap),
                 sizeof(CUlaunchAttribute), offsetof(CUlaunchAttribute, value),
                 sizeof(CUlaunchConfig), offsetof(CUlaunchConfig, hStream),
                 offsetof(CUlaunchConfig, attrs), offsetof(CUlaunchConfig, numAttrs),
                 sizeof(CUlaunchAttributeID));
          printf("%d %d %d %d %d\\n", CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                 CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                 CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
          printf("%d %d %d %d %d %d %d %d %d %d\\n", CU_TENSOR_MAP_DATA_TYPE_UINT8,
                 CU_TENSOR_MAP_DATA_TYPE_UINT16, CU_TENSOR_MAP_DATA_TYPE_UINT32,
                 CU_TENSOR_MAP_DATA_TYPE_INT32, CU_TENSOR_MAP_DATA_TYPE_UINT64,
                 CU_TENSOR_MAP_DATA_TYPE_INT64, CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                 CU_TENSOR_MAP_DATA_TYPE_FLOAT32, CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
                 CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
          printf("%d %d %d %d %d %d %d %d %d %d %d\\n", CU_TENSOR_MAP_INTERLEAVE_NONE,
                 CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                 CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B,
                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
                 CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
          return 0;
        }
    """))
    exe = tmp_path / "layout"
    subprocess.run([shutil.which("cc"), "-std=c11", f"-I{CUDA_H.parent}", str(src), "-o",
                    str(exe)], check=True)
    lines = [list(map(int, ln.split())) for ln in
             subprocess.run([str(exe)], check=True, capture_output=True,
                            text=True).stdout.splitlines()]
    assert lines[0] == [ctypes.sizeof(cuda.CUtensorMap), ctypes.sizeof(cuda.CUlaunchAttribute),
                        cuda.CUlaunchAttribute.value.offset, ctypes.sizeof(cuda.CUlaunchConfig),
                        cuda.CUlaunchConfig.hStream.offset, cuda.CUlaunchConfig.attrs.offset,
                        cuda.CUlaunchConfig.numAttrs.offset, 4]
    assert lines[1] == [cuda.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        cuda.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                        cuda.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, cuda.CU_JIT_ERROR_LOG_BUFFER,
                        cuda.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
    assert lines[2] == [cuda.CU_TENSOR_MAP_DATA_TYPE_UINT8, cuda.CU_TENSOR_MAP_DATA_TYPE_UINT16,
                        cuda.CU_TENSOR_MAP_DATA_TYPE_UINT32, cuda.CU_TENSOR_MAP_DATA_TYPE_INT32,
                        cuda.CU_TENSOR_MAP_DATA_TYPE_UINT64, cuda.CU_TENSOR_MAP_DATA_TYPE_INT64,
                        cuda.CU_TENSOR_MAP_DATA_TYPE_FLOAT16, cuda.CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                        cuda.CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
                        cuda.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16]
    assert lines[3] == [cuda.CU_TENSOR_MAP_INTERLEAVE_NONE, *cuda.CU_TENSOR_MAP_SWIZZLE.values(),
                        *cuda.CU_TENSOR_MAP_L2_PROMOTION.values(),
                        cuda.CU_TENSOR_MAP_FLOAT_OOB_FILL["none"],
                        cuda.CU_TENSOR_MAP_FLOAT_OOB_FILL["nan"]]


# --- The driver -------------------------------------------------------------------------------

def test_no_libcuda_is_a_clear_error(tmp_path, monkeypatch):
    with pytest.raises(RuntimeError, match=r"no CUDA driver \(libcuda\.so\.1\) found"):
        cuda.Driver("libcuda-that-does-not-exist.so.1")
    # Loading a bundle needs no driver; launching it does.
    monkeypatch.setattr(cuda, "LIBCUDA", "libcuda-that-does-not-exist.so.1")
    old = cuda.set_driver(None)
    try:
        d, _ = make_bundle(tmp_path)
        k = load_bundle(d)
        assert k.check_args(args_for()) == {"M": 4, "N": 300}
        with pytest.raises(RuntimeError, match=r"no CUDA driver \(libcuda\.so\.1\) found"):
            k(*args_for())
        with pytest.raises(RuntimeError, match=r"no CUDA driver \(libcuda\.so\.1\) found"):
            cuda.get_driver()
    finally:
        cuda.set_driver(old)


@pytest.mark.skipif(not STUB_LIBCUDA.exists(), reason="needs the toolkit's stub libcuda.so")
def test_stub_libcuda_symbols_and_errors():
    """The toolkit's stub libcuda.so exports the driver API and fails every
    call: every symbol the runtime uses exists, and failures name the call."""
    drv = cuda.Driver(str(STUB_LIBCUDA))
    for name in cuda._SIGNATURES:
        drv._fn(name)
    with pytest.raises(RuntimeError, match=r"^cuInit failed: CUDA_ERROR_STUB_LIBRARY \(34\)"):
        drv.init()
    # The hot calls, which check their result inline, still fail loudly.
    with pytest.raises(RuntimeError, match=r"^cuCtxGetCurrent failed: CUDA_ERROR_STUB_LIBRARY"):
        drv.ctx_get_current()
    with pytest.raises(RuntimeError, match=r"^cuLaunchKernel failed: CUDA_ERROR_STUB_LIBRARY"):
        drv.launch_kernel(0, (1, 1, 1), (1, 1, 1), 0, 0, (ctypes.c_void_p * 1)())
    with pytest.raises(RuntimeError, match=r"^cuDeviceGet\(0\) failed: CUDA_ERROR_STUB"):
        drv.device_get(0)


def test_driver_error_text_uses_cuGetErrorName():
    class Lib:
        def __getattr__(self, name):
            def fn(*args):
                if name == "cuGetErrorName":
                    args[1]._obj.value = b"CUDA_ERROR_INVALID_VALUE"
                    return 0
                if name == "cuGetErrorString":
                    args[1]._obj.value = b"invalid argument"
                    return 0
                return 1
            return fn
    drv = cuda.Driver.__new__(cuda.Driver)
    drv._lib, drv._fns, drv.library = Lib(), {}, "fake"
    with pytest.raises(RuntimeError, match=r"^cuModuleGetFunction\('k'\) failed: "
                                           r"CUDA_ERROR_INVALID_VALUE \(1\): invalid argument"):
        drv.module_get_function(0x10, "k")


# --- Argument checking ------------------------------------------------------------------------

def test_check_args_cuda_array_interface(tmp_path):
    d, meta = make_bundle(tmp_path)
    k = cuda.CudaKernel(d, meta, driver=FakeDriver())
    assert k.check_args(args_for(m=4, n=300)) == {"M": 4, "N": 300}
    assert k.check_args([None, FakeCudaArray((2, 5)), 1.0, 3]) == {"M": 2, "N": 5}
    a, b, alpha, n = args_for()
    with pytest.raises(TypeError, match="takes 4 arguments \\(A, B, alpha, n\\), got 3"):
        k.check_args([a, b, alpha])
    with pytest.raises(TypeError, match="'A' must have dtype float16, got float32"):
        k.check_args([FakeCudaArray((4, 64), "<f4"), b, alpha, n])
    with pytest.raises(TypeError, match="'A' must have dtype float16, got <V2"):
        k.check_args([FakeCudaArray((4, 64), "<V2"), b, alpha, n])
    with pytest.raises(ValueError, match="'A' must have 2 dimensions"):
        k.check_args([FakeCudaArray((4, 64, 1), "<f2"), b, alpha, n])
    with pytest.raises(ValueError, match=r"'A' must have shape \('M', 64\), got \(4, 32\)"):
        k.check_args([FakeCudaArray((4, 32), "<f2"), b, alpha, n])
    with pytest.raises(ValueError, match="dynamic dimension 'M' is 4 elsewhere but 5"):
        k.check_args([a, FakeCudaArray((5, 300)), alpha, n])
    with pytest.raises(ValueError, match="'B' must be contiguous"):
        k.check_args([a, FakeCudaArray((4, 300), strides=(4, 16)), alpha, n])
    # strides that are C-contiguous, or only odd on size-1 dimensions, are fine
    k.check_args([a, FakeCudaArray((4, 300), strides=(1200, 4)), alpha, n])
    k.check_args([FakeCudaArray((1, 64), "<f2"), FakeCudaArray((1, 300), strides=(4, 4)),
                  alpha, n])
    with pytest.raises(TypeError, match="'alpha' must be a float32 scalar, got str"):
        k.check_args([a, b, "1.5", n])
    with pytest.raises(TypeError, match="'n' must be a int32 scalar, got float"):
        k.check_args([a, b, alpha, 2.0])
    with pytest.raises(TypeError, match="'n' must be a int32 scalar, got bool"):
        k.check_args([a, b, alpha, True])
    with pytest.raises(TypeError, match="'alpha' must be a float32 scalar, got bool"):
        k.check_args([a, b, False, n])
    with pytest.raises(ValueError, match="'n' = 2147483648 does not fit in int32"):
        k.check_args([a, b, alpha, 1 << 31])
    k.check_args([a, b, 2, -(1 << 31)])     # an int is a fine float32
    with pytest.raises(TypeError, match="must be a CUDA tensor .* got builtins.list"):
        k.check_args([[1.0], b, alpha, n])

    class HostArray:
        __array_interface__ = {}
    with pytest.raises(TypeError, match="host memory"):
        k.check_args([HostArray(), b, alpha, n])


def test_check_args_torch(tmp_path, fake_torch):
    d, meta = make_bundle(tmp_path)
    k = cuda.CudaKernel(d, meta, driver=FakeDriver())
    a = FakeTorchTensor((4, 64), "float16")
    b = FakeTorchTensor((4, 300), "float32")
    assert k.check_args([a, b, 1.0, 2]) == {"M": 4, "N": 300}
    with pytest.raises(TypeError, match=r"'A' is a torch tensor on .*cpu.*\.cuda\(\)"):
        k.check_args([FakeTorchTensor((4, 64), "float16", device=("cpu", None)), b, 1.0, 2])
    with pytest.raises(TypeError, match="'B' must have dtype float32, got bfloat16"):
        k.check_args([a, FakeTorchTensor((4, 300), "bfloat16"), 1.0, 2])
    with pytest.raises(ValueError, match="'B' must be contiguous"):
        k.check_args([a, FakeTorchTensor((4, 300), contiguous=False), 1.0, 2])
    with pytest.raises(ValueError, match="'B' is on cuda:1, but other arguments are on cuda:0"):
        k.check_args([a, FakeTorchTensor((4, 300), device=("cuda", 1)), 1.0, 2])


def test_bundle_meta_validation(tmp_path):
    d, meta = make_bundle(tmp_path)
    bad = [
        ({"kernel_args": [{"kind": "ptr", "param": 9}]}, "parameter 9, which does not exist"),
        ({"kernel_args": [{"kind": "ptr", "param": 2}]}, "needs a tensor, but parameter 'alpha'"),
        ({"kernel_args": [{"kind": "dim", "param": 0, "dim": 2}]}, "which has rank 2"),
        ({"kernel_args": [{"kind": "scalar", "param": 0}]}, "names tensor 'A'"),
        ({"kernel_args": [{"kind": "what", "param": 0}]}, "unknown kind 'what'"),
        ({"kernel_args": [{"kind": "tma", "param": 0, "box": [64]}]}, "must have 2 entries"),
        ({"kernel_args": [{"kind": "tma", "param": 0, "box": [8, 64], "swizzle": 16}]},
         "swizzle must be"),
        ({"kernel_args": [{"kind": "tma", "param": 0, "box": [8, 64], "elem_dtype": "float32"}]},
         "differ in size"),
        ({"block": [0, 1, 1]}, "block must be"),
        ({"cluster": [2, 0, 1]}, "cluster must be"),
        ({"binary": "missing.cubin"}, "cannot read its binary"),
        ({"target": "cpu"}, "not 'cuda'"),
        ({"params": [{"name": "x", "kind": "tensor", "dtype": "complex64", "shape": [1]}],
          "kernel_args": [], "grid": [1]}, "unknown dtype 'complex64'"),
    ]
    for override, words in bad:
        m = dict(meta, **override)
        with pytest.raises((ValueError, TypeError), match=words):
            cuda.CudaKernel(d, m)


# --- Packing and launching --------------------------------------------------------------------

def test_pack_args_sizes_order_and_values(tmp_path):
    d, meta = make_bundle(tmp_path)
    k = cuda.CudaKernel(d, meta, driver=FakeDriver())
    values, dims = k._collect(args_for(m=4, n=300))
    objs = k.pack_args(values)
    assert [type(o) for o in objs] == [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                                       ctypes.c_int64, ctypes.c_int64, ctypes.c_float,
                                       ctypes.c_int32, ctypes.c_int64, ctypes.c_double]
    assert [ctypes.sizeof(o) for o in objs] == [8, 8, 8, 8, 8, 4, 4, 8, 8]
    assert [o.value for o in objs] == [0x7f0000000000, 0x7f0000200000, 4, 300, 300, 1.5, 7, 7,
                                       1.5]
    assert k.grid_dims(dims) == (3, 2, 1)


def test_launch_packs_params_for_the_driver(tmp_path):
    d, meta = make_bundle(tmp_path)
    drv = FakeDriver(param_sizes=[8, 8, 8, 8, 8, 4, 4, 8, 8])
    k = cuda.CudaKernel(d, meta, driver=drv)
    k(*args_for(m=6, n=129))
    (launch,) = drv.launches
    assert launch["api"] == "cuLaunchKernel"
    assert launch["grid"] == (2, 3, 1) and launch["block"] == (128, 1, 1)
    assert launch["shared"] == 1024 and launch["stream"] == 0 and launch["func"] == 0x3000
    want = [struct.pack("<Q", 0x7f0000000000), struct.pack("<Q", 0x7f0000200000),
            struct.pack("<q", 6), struct.pack("<q", 129), struct.pack("<q", 129),
            struct.pack("<f", 1.5), struct.pack("<i", 7), struct.pack("<q", 7),
            struct.pack("<d", 1.5)]
    assert launch["params"] == want
    # 1024 bytes of dynamic shared memory need no opt-in
    assert not [c for c in drv.calls if c[0] == "func_set_attribute"]
    # no current context: the device's primary context is made current, and stays
    assert ("primary_context", 0) in drv.calls and drv.current == 0x1000
    assert ("pointer_device", 0x7f0000000000) in drv.calls


def test_module_loaded_once_per_context_and_context_restored(tmp_path):
    d, meta = make_bundle(tmp_path)
    drv = FakeDriver(current=0x77, devices={0x77: 0})    # e.g. torch's context on device 0
    k = cuda.CudaKernel(d, meta, driver=drv)
    k(*args_for())
    k(*args_for(n=1000))
    loads = [c for c in drv.calls if c[0] == "module_load_data"]
    assert len(loads) == 1 and loads[0][2] == 0x77
    assert loads[0][1] == (d / "kernel.ptx").read_bytes()
    assert ("module_get_function", 0x2000, "k") in drv.calls
    assert not [c for c in drv.calls if c[0] in ("primary_context", "ctx_set_current")]
    assert [la["context"] for la in drv.launches] == [0x77, 0x77]
    assert [la["grid"] for la in drv.launches] == [(3, 2, 1), (8, 2, 1)]

    # the current context belongs to another device: switch for the launch, then restore
    drv2 = FakeDriver(current=0x88, devices={0x88: 1})
    k2 = cuda.CudaKernel(d, meta, driver=drv2)
    k2(*args_for())
    assert drv2.launches[0]["context"] == 0x1000
    assert [c for c in drv2.calls if c[0] == "ctx_set_current"] == [
        ("ctx_set_current", 0x1000), ("ctx_set_current", 0x88)]
    assert drv2.current == 0x88


def test_cubin_for_another_arch_loads_the_ptx_directly(tmp_path):
    # An sm_80 bundle on an sm_90 GPU: no failed cubin load (compute-sanitizer
    # reports one as an error), the driver compiles the PTX.
    d, meta = make_bundle(tmp_path, arch="sm_80", binary="kernel.cubin", ptx="kernel.ptx")
    (d / "kernel.cubin").write_bytes(b"\x7fELF-sm_80")
    drv = FakeDriver(current=0x77, devices={0x77: 0})
    drv.device_arch = lambda dev: "sm_90"
    cuda.CudaKernel(d, meta, driver=drv)(*args_for())
    loads = [c[1] for c in drv.calls if c[0] == "module_load_data"]
    assert loads == [(d / "kernel.ptx").read_bytes()]
    # the bundle's own architecture (sm_90a on sm_90): the cubin
    (tmp_path / "b2").mkdir()
    d2, meta2 = make_bundle(tmp_path / "b2", binary="kernel.cubin", ptx="kernel.ptx")
    (d2 / "kernel.cubin").write_bytes(b"\x7fELF-sm_90a")
    drv2 = FakeDriver(current=0x77, devices={0x77: 0})
    drv2.device_arch = lambda dev: "sm_90"
    cuda.CudaKernel(d2, meta2, driver=drv2)(*args_for())
    assert [c[1] for c in drv2.calls if c[0] == "module_load_data"] == [b"\x7fELF-sm_90a"]


def test_large_shared_memory_and_cluster_launch(tmp_path):
    d, meta = make_bundle(tmp_path, shared_bytes=100 * 1024, cluster=[2, 1, 1],
                          grid=["(N + 255) // 256 * 2", "M"])
    drv = FakeDriver(param_sizes=[8, 8])
    k = cuda.CudaKernel(d, meta, driver=drv)
    k(*args_for(m=3, n=300))
    assert ("func_set_attribute", 0x3000, 8, 100 * 1024) in drv.calls
    (launch,) = drv.launches
    assert launch["api"] == "cuLaunchKernelEx"
    assert launch["grid"] == (4, 3, 1) and launch["block"] == (128, 1, 1)
    assert launch["shared"] == 100 * 1024
    assert launch["attrs"] == [(cuda.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, (2, 1, 1))]
    assert launch["params"][0] == struct.pack("<Q", 0x7f0000000000)

    d, meta = make_bundle(tmp_path, cluster=[2, 1, 1], grid=["(N + 255) // 256"])
    drv = FakeDriver()
    k = cuda.CudaKernel(d, meta, driver=drv)
    with pytest.raises(ValueError, match=r"grid \(3, 1, 1\) is not a multiple of the cluster "
                                         r"\(2, 1, 1\) along x"):
        k(*args_for(m=4, n=600))
    assert drv.launches == []


def test_failed_function_setup_unloads_the_module_and_retries(tmp_path):
    d, meta = make_bundle(tmp_path, shared_bytes=300 * 1024)
    drv = FakeDriver()
    k = cuda.CudaKernel(d, meta, driver=drv)
    with pytest.raises(RuntimeError, match="cuFuncSetAttribute failed"):
        k(*args_for())
    assert ("module_unload", 0x2000) in drv.calls and drv.launches == []
    drv.max_shared = 400 * 1024
    k(*args_for())
    assert len([c for c in drv.calls if c[0] == "module_load_data"]) == 2
    assert len(drv.launches) == 1


def test_empty_grid_launches_nothing(tmp_path):
    d, meta = make_bundle(tmp_path)
    drv = FakeDriver()
    k = cuda.CudaKernel(d, meta, driver=drv)
    k(*args_for(m=0, n=0))
    assert drv.launches == [] and drv.calls == []


def test_streams(tmp_path, fake_torch):
    d, meta = make_bundle(tmp_path)
    drv = FakeDriver()
    k = cuda.CudaKernel(d, meta, driver=drv)
    a = FakeTorchTensor((4, 64), "float16", device=("cuda", 0))
    b = FakeTorchTensor((4, 300), "float32", device=("cuda", 0))
    k(a, b, 1.0, 2)
    assert drv.launches[-1]["stream"] == 0x5EED and fake_torch.streams == [0]
    assert ("pointer_device", a.data_ptr()) not in drv.calls     # torch knows the device
    k(a, b, 1.0, 2, stream=0x99)
    assert drv.launches[-1]["stream"] == 0x99
    k.launch([a, b, 1.0, 2], stream=types.SimpleNamespace(ptr=0x42))   # a cupy stream
    assert drv.launches[-1]["stream"] == 0x42
    with pytest.raises(TypeError, match="stream must be"):
        k(a, b, 1.0, 2, stream="default")


def test_scalar_packing():
    def raw(dtype, v):
        o = cuda.pack_scalar(dtype, v)
        return ctypes.string_at(ctypes.addressof(o), ctypes.sizeof(o))
    assert raw("float32", 2.5) == struct.pack("<f", 2.5)
    assert raw("float64", 2.5) == struct.pack("<d", 2.5)
    assert raw("int32", -3) == struct.pack("<i", -3)
    assert raw("int64", 1 << 40) == struct.pack("<q", 1 << 40)
    assert raw("index", 5) == struct.pack("<q", 5)
    assert raw("float16", 1.5) == struct.pack("<e", 1.5) + b"\0\0"
    assert raw("bfloat16", 1.0) == b"\x80\x3f\0\0"
    assert raw("bfloat16", 1.00390625) == b"\x80\x3f\0\0"    # ties to even
    assert raw("int8", -1) == struct.pack("<i", -1)
    assert raw("bool", True) == struct.pack("<I", 1)
    with pytest.raises(OverflowError, match="does not fit in int32"):
        cuda.pack_scalar("int32", 1 << 31)
    with pytest.raises(TypeError, match="not supported"):
        cuda.pack_scalar("float8_e4m3", 1.0)


# --- TMA descriptors --------------------------------------------------------------------------

def tma_bundle(tmp_path, **tma):
    arg = {"kind": "tma", "param": 0, "box": [64, 64], "swizzle": 128, "elem_dtype": "float16"}
    arg.update(tma)
    return make_bundle(
        tmp_path,
        params=[{"name": "X", "kind": "tensor", "dtype": "float16", "shape": ["M", "K"]}],
        kernel_args=[arg, {"kind": "ptr", "param": 0}], grid=["M // 64"])


def test_tma_descriptor_by_value_and_cached(tmp_path):
    d, meta = tma_bundle(tmp_path)
    drv = FakeDriver(param_sizes=[128, 8])
    k = cuda.CudaKernel(d, meta, driver=drv)
    x = FakeCudaArray((256, 512), "<f2", 0x7f0000400000)
    k(x)
    k(x)
    (enc,) = drv.encodes     # the second launch reuses the cached descriptor
    assert enc == {"dtype": cuda.CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "rank": 2,
                   "address": 0x7f0000400000, "dims": [512, 256], "strides": [1024],
                   "box": [64, 64], "element_strides": [1, 1], "interleave": 0,
                   "swizzle": 3, "l2": 2, "oob": 0}
    for launch in drv.launches:
        desc = launch["params"][0]
        assert len(desc) == 128
        assert struct.unpack_from("<QQ", desc) == (0x7f0000400000, 0xC0FFEE)
        assert launch["params"][1] == struct.pack("<Q", 0x7f0000400000)
        assert launch["grid"] == (4, 1, 1)
    # another shape or pointer: a new descriptor
    k(FakeCudaArray((128, 512), "<f2", 0x7f0000400000))
    k(FakeCudaArray((256, 512), "<f2", 0x7f0000800000))
    assert len(drv.encodes) == 3


def test_tma_options_reach_the_driver(tmp_path):
    d, meta = tma_bundle(tmp_path, box=[16, 32], swizzle=64, element_strides=[2, 1],
                         l2_promotion=256, oob_fill="nan")
    drv = FakeDriver()
    k = cuda.CudaKernel(d, meta, driver=drv)
    k(FakeCudaArray((128, 96), "<f2", 0x7f0000400000))
    (enc,) = drv.encodes
    assert enc["dims"] == [96, 128] and enc["strides"] == [192] and enc["box"] == [32, 16]
    assert enc["element_strides"] == [1, 2]
    assert (enc["swizzle"], enc["l2"], enc["oob"]) == (2, 3, 1)


def test_encode_tensor_map_3d_order():
    drv = FakeDriver()
    t = cuda.encode_tensor_map(0x1000, "bfloat16", (4, 8, 64), (8 * 64 * 2, 64 * 2, 2),
                               (1, 8, 64), swizzle=128, driver=drv)
    assert ctypes.addressof(t) % 64 == 0
    assert drv.encodes[0]["dims"] == [64, 8, 4]
    assert drv.encodes[0]["strides"] == [128, 1024]
    assert drv.encodes[0]["box"] == [64, 8, 1]
    assert drv.encodes[0]["dtype"] == cuda.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
    assert cuda.encode_tensor_map(0x1000, "bfloat16", (4, 8, 64), (1024, 128, 2), (1, 8, 64),
                                  swizzle=128, driver=drv) is t


@pytest.mark.parametrize("kw, words", [
    ({"ptr": 0x1008}, "16-byte aligned"),
    ({"box": (64, 512)}, "1 to 256"),
    ({"box": (64, 4)}, "multiple of 16 bytes"),
    ({"swizzle": 64}, "more than the 64-byte swizzle"),
    ({"shape": (64, 100), "strides": (200, 2)}, "multiples of 16 bytes"),
    ({"strides": (1024, 4)}, "innermost dimension must be contiguous"),
    ({"shape": (0, 512)}, "TMA needs sizes"),
    ({"element_strides": (9, 1)}, r"not in \[1, 8\]"),
    ({"dtype": "int32", "strides": (2048, 4), "oob_fill": "nan"}, "floating-point"),
    ({"shape": (1,) * 6, "strides": (16,) * 5 + (2,), "box": (1,) * 5 + (8,)}, "ranks 1 to 5"),
])
def test_encode_tensor_map_checks(kw, words):
    args = {"ptr": 0x1000, "dtype": "float16", "shape": (256, 512), "strides": (1024, 2),
            "box": (64, 64), "swizzle": 128}
    args.update(kw)
    drv = FakeDriver()
    with pytest.raises(ValueError, match=words):
        cuda.encode_tensor_map(args.pop("ptr"), args.pop("dtype"), args.pop("shape"),
                               args.pop("strides"), args.pop("box"), driver=drv, **args)
    assert drv.encodes == []


# --- Loading and imports ----------------------------------------------------------------------

def test_load_bundle_makes_a_cuda_kernel(tmp_path):
    d, _ = make_bundle(tmp_path)
    k = load_bundle(d)
    assert isinstance(k, cuda.CudaKernel)
    assert k.entry == "k" and k.arch == "sm_90a" and k.block == (128, 1, 1)
    assert k.dynamic_dims == {"M", "N"} and [p["name"] for p in k.params] == ["A", "B", "alpha",
                                                                               "n"]


def _imports_after(code):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, env=env, cwd=REPO).stdout
    return set(out.split())


def test_runtime_cuda_does_not_import_the_compiler():
    """The runtime package itself (tilemlir/runtime/*) imports nothing from
    the compiler side. (tilemlir/__init__.py is kept out of the way here:
    see the next test.)"""
    mods = _imports_after(textwrap.dedent(f"""
        import sys, types
        pkg = types.ModuleType("tilemlir")
        pkg.__path__ = [{str(REPO / "python" / "tilemlir")!r}]
        sys.modules["tilemlir"] = pkg
        import tilemlir.runtime.cuda
        from tilemlir.runtime import load_bundle, CudaKernel
        print(" ".join(sys.modules))
    """))
    assert "tilemlir.runtime.cuda" in mods
    for m in ("tilemlir._compiler", "tilemlir.jit", "tilemlir.language", "tilemlir.autotuner",
              "tilemlir.runtime.cpu", "numpy", "torch"):
        assert m not in mods, f"importing tilemlir.runtime.cuda imported {m}"


def test_import_tilemlir_runtime_cuda_does_not_import_the_compiler():
    mods = _imports_after("import sys, tilemlir.runtime.cuda; print(' '.join(sys.modules))")
    assert "tilemlir._compiler" not in mods


def test_tma_rows_not_16_byte_aligned_without_torch(tmp_path):
    # 500 halves a row: 1000 bytes, not a multiple of 16 (TMA's stride unit).
    d, meta = tma_bundle(tmp_path)
    drv = FakeDriver()
    k = cuda.CudaKernel(d, meta, driver=drv)
    with pytest.raises(ValueError, match="'X' is read with TMA.*pass a torch tensor"):
        k(FakeCudaArray((256, 500), "<f2", 0x7f0000400000))
    assert drv.encodes == [] and drv.launches == []


class FakePaddedTensor(FakeTorchTensor):
    """What torch.empty returns in the fake: records the copy into it."""

    copies = []

    def __getitem__(self, index):
        return self

    def copy_(self, src):
        FakePaddedTensor.copies.append((self.shape, src.shape))
        return self


def test_tma_rows_not_16_byte_aligned_are_staged_in_a_padded_copy(tmp_path, fake_torch):
    def empty(shape, dtype=None, device=None):
        return FakePaddedTensor(shape, "float16", ptr=0x7f0000900000)
    fake_torch.empty = empty
    FakePaddedTensor.copies.clear()
    d, meta = tma_bundle(tmp_path)
    drv = FakeDriver(param_sizes=[128, 8])
    k = cuda.CudaKernel(d, meta, driver=drv)
    x = FakeTorchTensor((256, 500), "float16", ptr=0x7f0000400000)
    k(x)
    # The descriptor reads the padded copy (rows of 504 halves = 1008 bytes)
    # with the tensor's own sizes; the kernel's pointer argument is x itself.
    (enc,) = drv.encodes
    assert enc["address"] == 0x7f0000900000
    assert enc["dims"] == [500, 256] and enc["strides"] == [1008]
    assert FakePaddedTensor.copies == [((256, 504), (256, 500))]
    assert drv.launches[0]["params"][1] == struct.pack("<Q", 0x7f0000400000)


def test_tma_store_target_is_never_a_padded_copy(tmp_path, fake_torch):
    # A tensor the kernel writes through TMA: a padded copy would take the
    # writes, so rows that are not 16-byte aligned are an error.
    d, meta = tma_bundle(tmp_path, store=True)
    drv = FakeDriver(param_sizes=[128, 8])
    k = cuda.CudaKernel(d, meta, driver=drv)
    x = FakeTorchTensor((256, 500), "float16", ptr=0x7f0000400000)
    with pytest.raises(ValueError, match="'X' is written with TMA.*disable_tma=True"):
        k(x)
    assert drv.encodes == [] and drv.launches == []
    # Aligned rows: the descriptor is the tensor's own.
    k(FakeTorchTensor((256, 512), "float16", ptr=0x7f0000400000))
    (enc,) = drv.encodes
    assert enc["address"] == 0x7f0000400000 and enc["strides"] == [1024]


def test_kernel_args_of_tma_descriptors():
    from tilemlir.jit import _kernel_args
    params = [{"name": "A", "kind": "tensor", "dtype": "float16", "shape": [64, 32]},
              {"name": "C", "kind": "tensor", "dtype": "float16", "shape": [64]}]
    args = _kernel_args(params, [{"tma": {"param": 0, "box": [64, 32], "swizzle": 128}}, 1])
    assert args[0] == {"kind": "tma", "param": 0, "box": [64, 32], "swizzle": 128}
    assert [a["kind"] for a in args[1:]] == ["ptr", "ptr", "const", "dim", "stride"]
    # A descriptor the kernel stores through keeps its mark.
    args = _kernel_args(params, [{"tma": {"param": 0, "box": [64, 32], "swizzle": 128,
                                          "store": True}}])
    assert args == [{"kind": "tma", "param": 0, "box": [64, 32], "swizzle": 128,
                     "store": True}]


def test_tma_descriptor_of_an_empty_tensor(tmp_path):
    # K = 0: the kernel loads nothing, but its descriptor parameter must
    # still be a valid tensor map.
    d, meta = tma_bundle(tmp_path, box=[64, 64])
    meta["grid"] = ["1"]
    drv = FakeDriver()
    k = cuda.CudaKernel(d, meta, driver=drv)
    k(FakeCudaArray((256, 0), "<f2", 0x7f0000400000))
    (enc,) = drv.encodes
    assert enc["dims"] == [1, 256] and enc["strides"] == [16]


def test_repeated_launches_reuse_packed_parameters(tmp_path, fake_torch):
    # The second launch with the same tensors and scalars skips the checks
    # and the packing (no new descriptor, no context queries) but launches
    # the same parameters on torch's current stream.
    d, meta = tma_bundle(tmp_path)
    drv = FakeDriver(param_sizes=[128, 8])
    k = cuda.CudaKernel(d, meta, driver=drv)
    x = FakeTorchTensor((256, 512), "float16", ptr=0x7f0000400000)
    k(x)
    k(x)
    k(x)
    assert len(drv.encodes) == 1 and len(drv.launches) == 3
    assert drv.launches[1]["params"] == drv.launches[0]["params"] == drv.launches[2]["params"]
    assert drv.launches[2]["stream"] == 0x5EED and drv.launches[2]["grid"] == (4, 1, 1)
    # Another pointer or shape: checked and packed again.
    k(FakeTorchTensor((256, 512), "float16", ptr=0x7f0000800000))
    k(FakeTorchTensor((128, 512), "float16", ptr=0x7f0000400000))
    assert len(drv.encodes) == 3 and drv.launches[-1]["grid"] == (2, 1, 1)
    # Bad arguments are still caught (they miss the cache).
    with pytest.raises(TypeError, match="must have dtype float16"):
        k(FakeTorchTensor((256, 512), "float32", ptr=0x7f0000400000))


def test_repeated_cluster_launches_keep_the_cluster(tmp_path, fake_torch):
    d, meta = make_bundle(
        tmp_path, cluster=[2, 1, 1], grid=["2"],
        params=[{"name": "X", "kind": "tensor", "dtype": "float16", "shape": [64]}],
        kernel_args=[{"kind": "ptr", "param": 0}])
    drv = FakeDriver(param_sizes=[8])
    k = cuda.CudaKernel(d, meta, driver=drv)
    x = FakeTorchTensor((64,), "float16", ptr=0x7f0000400000)
    k(x)
    k(x)     # from the launch cache
    assert [launch["api"] for launch in drv.launches] == ["cuLaunchKernelEx"] * 2
    assert all(launch["attrs"] == [(cuda.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, (2, 1, 1))]
               for launch in drv.launches)
    assert drv.launches[0]["params"] == drv.launches[1]["params"]


def test_num_sms_asks_the_device():
    old = cuda.set_driver(FakeDriver())
    try:
        assert cuda.num_sms() == 132
        assert cuda.num_sms(1) == 133
    finally:
        cuda.set_driver(old)


def written_b_bundle(tmp_path):
    """The test bundle with B marked as written by the kernel."""
    d, meta = make_bundle(tmp_path)
    meta["params"] = [dict(p) for p in meta["params"]]
    meta["params"][1]["written"] = True
    return cuda.CudaKernel(d, meta, driver=FakeDriver())


def test_read_only_cuda_array_interface_output_is_refused(tmp_path):
    k = written_b_bundle(tmp_path)
    a, b, alpha, n = args_for()
    a.__cuda_array_interface__["data"] = (0x7f0000000000, True)  # a read-only input: fine
    k.check_args([a, b, alpha, n])
    b.__cuda_array_interface__["data"] = (0x7f0000200000, True)
    with pytest.raises(ValueError, match="'B' is read-only .*__cuda_array_interface__"):
        k.check_args([a, b, alpha, n])


def test_cuda_output_overlapping_an_input_is_refused(tmp_path):
    k = written_b_bundle(tmp_path)
    # A is 4x64 halves (512 bytes) at a_ptr; B starts inside it.
    with pytest.raises(ValueError, match="'A' and 'B' overlap in memory, and the kernel "
                                         "writes 'B'"):
        k.check_args(args_for(a_ptr=0x7f0000000000, b_ptr=0x7f0000000100))
    k.check_args(args_for(a_ptr=0x7f0000000000, b_ptr=0x7f0000000200))  # just after A


def test_torch_tensor_that_torch_would_not_write_is_refused(tmp_path, fake_torch):
    k = written_b_bundle(tmp_path)
    fake_torch.is_grad_enabled = lambda: True
    fake_torch.is_inference_mode_enabled = lambda: False
    a = FakeTorchTensor((4, 64), "float16", ptr=0x7f0000000000)
    b = FakeTorchTensor((4, 300), "float32", ptr=0x7f0000200000)
    b.requires_grad, b.is_leaf = True, True
    with pytest.raises(ValueError, match="'B' is read-only .*leaf torch tensor that requires "
                                         "grad"):
        k.check_args([a, b, 1.5, 7])
    b.requires_grad = False
    b.is_inference = lambda: True
    with pytest.raises(ValueError, match="'B' is read-only .*inference tensor"):
        k.check_args([a, b, 1.5, 7])


def test_compute_capability_asks_the_driver():
    class Driver(FakeDriver):
        def device_compute_capability(self, dev):
            self.calls.append(("cc", dev))
            return (8, 0)

    drv = Driver()
    old = cuda.set_driver(drv)
    try:
        assert cuda.compute_capability(0) == (8, 0)
        assert drv.calls == [("init",), ("cc", 0)]
    finally:
        cuda.set_driver(old)


def test_compute_capability_without_a_gpu():
    class NoDevice(FakeDriver):
        def init(self):
            raise RuntimeError("cuInit failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable "
                               "device is detected")

    old = cuda.set_driver(NoDevice())
    try:
        assert cuda.compute_capability(0) is None
    finally:
        cuda.set_driver(old)


def test_compute_capability_reads_both_attributes(monkeypatch):
    """Driver.device_compute_capability: cuDeviceGetAttribute for the major
    and minor compute capability, over a fake libcuda."""
    drv = cuda.Driver.__new__(cuda.Driver)
    asked = []

    def get_attribute(out, attr, dev):
        asked.append((attr, dev))
        out._obj.value = {cuda.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: 9,
                          cuda.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: 0}[attr]
        return cuda.CUDA_SUCCESS

    drv._fns = {"cuDeviceGetAttribute": get_attribute}
    assert drv.device_compute_capability(3) == (9, 0)
    assert drv.device_arch(3) == "sm_90"
    assert asked[:2] == [(75, 3), (76, 3)]


# --- The per-call path ---------------------------------------------------------------------

def test_launch_cache_still_refuses_an_output_torch_would_not_write(tmp_path, fake_torch):
    # A cached launch must not skip the read-only check: the tensor is the
    # same object (same pointer, shape, strides) but now a leaf that
    # requires grad, or an inference tensor outside inference mode.
    k = written_b_bundle(tmp_path)
    fake_torch.is_grad_enabled = lambda: True
    fake_torch.is_inference_mode_enabled = lambda: False
    a = FakeTorchTensor((4, 64), "float16", ptr=0x7f0000000000)
    b = FakeTorchTensor((4, 300), "float32", ptr=0x7f0000200000)
    k(a, b, 1.5, 7)
    k(a, b, 1.5, 7)
    b.requires_grad = True
    with pytest.raises(ValueError, match="'B' is read-only .*requires grad"):
        k(a, b, 1.5, 7)
    fake_torch.is_grad_enabled = lambda: False      # torch.no_grad(): writing it is fine
    k(a, b, 1.5, 7)
    fake_torch.is_grad_enabled = lambda: True
    b.requires_grad = False
    b.is_inference = lambda: True
    with pytest.raises(ValueError, match="'B' is read-only .*inference tensor"):
        k(a, b, 1.5, 7)
    # A read-only input the kernel does not write is fine, cached or not.
    a.requires_grad = True
    b.is_inference = lambda: False
    k(a, b, 1.5, 7)
    k(a, b, 1.5, 7)
    assert len(k.driver.launches) == 5


def test_launch_takes_torchs_raw_current_stream(tmp_path, fake_torch):
    # torch._C._cuda_getCurrentRawStream(device) gives the handle without
    # building a torch.cuda.Stream; the runtime uses it where torch has it.
    raw = []
    fake_torch._C = types.SimpleNamespace(
        _cuda_getCurrentRawStream=lambda device: raw.append(device) or 0xABC)
    d, meta = make_bundle(tmp_path)
    drv = FakeDriver()
    k = cuda.CudaKernel(d, meta, driver=drv)
    a = FakeTorchTensor((4, 64), "float16", ptr=0x7f0000000000)
    b = FakeTorchTensor((4, 300), "float32", ptr=0x7f0000200000)
    k(a, b, 1.5, 7)      # checked
    k(a, b, 1.5, 7)      # cached
    assert [launch["stream"] for launch in drv.launches] == [0xABC, 0xABC]
    assert raw == [0, 0] and fake_torch.streams == []


def jit_add(tmp_path, shape_c=("M", 64)):
    """A JITKernel (C = f(A, B), out_idx=[2]) over a hand-written bundle."""
    from tilemlir.jit import JITKernel
    d, meta = make_bundle(
        tmp_path,
        params=[{"name": "A", "kind": "tensor", "dtype": "float16", "shape": ["M", 64]},
                {"name": "B", "kind": "tensor", "dtype": "float16", "shape": [{"var": "M",
                                                                             "mul": 2, "add": 0},
                                                                            64]},
                {"name": "C", "kind": "tensor", "dtype": "float32", "shape": list(shape_c),
                 "written": True}],
        kernel_args=[{"kind": "ptr", "param": 0}, {"kind": "ptr", "param": 1},
                     {"kind": "ptr", "param": 2}, {"kind": "dim", "param": 0, "dim": 0}],
        grid=["M"])
    return JITKernel(None, [2], "cuda:sm_90a", None, d)


def test_jit_call_path_reuses_its_plan(tmp_path, fake_torch, monkeypatch):
    drv = FakeDriver(param_sizes=[8, 8, 8, 8])
    old = cuda.set_driver(drv)
    try:
        made = []

        def empty(shape, dtype=None, device=None):
            made.append((tuple(shape), dtype, device))
            return FakeTorchTensor(shape, "float32", ptr=0x7f0000900000)
        fake_torch.empty = empty
        # A torch tensor input makes the output with its new_empty: same
        # device.
        monkeypatch.setattr(FakeTorchTensor, "new_empty",
                            lambda self, shape, dtype=None: empty(shape, dtype, self.device),
                            raising=False)
        fake_torch.float32 = "torch.float32"
        k = jit_add(tmp_path)
        a = FakeTorchTensor((4, 64), "float16", ptr=0x7f0000000000)
        b = FakeTorchTensor((8, 64), "float16", ptr=0x7f0000200000)
        k(a, b)
        # After the first call the output's torch dtype is known: calls do
        # not look dtypes up again.
        import tilemlir.language.dtypes as dtypes

        def no_lookup(*_):
            raise AssertionError("dtype looked up again")
        monkeypatch.setattr(dtypes, "as_dtype", no_lookup)
        c = k(a, b)
        assert c.shape == (4, 64)
        assert made == [((4, 64), "torch.float32", a.device)] * 2
        assert [launch["grid"] for launch in drv.launches] == [(4, 1, 1)] * 2
        # Errors still fire: input count, shapes (checked by the runtime),
        # dynamic sizes that disagree.
        with pytest.raises(TypeError, match=r"kernel takes 2 inputs \(A, B\), got 1"):
            k(a)
        with pytest.raises(ValueError, match="'A' must have shape"):
            k(FakeTorchTensor((4, 63), "float16", ptr=0x7f0000000000), b)
        with pytest.raises(ValueError, match="'B' has a dimension of size 7"):
            k(a, FakeTorchTensor((7, 64), "float16", ptr=0x7f0000200000))
        with pytest.raises(ValueError, match="dynamic dimension 'M' is 4 elsewhere"):
            k(a, FakeTorchTensor((10, 64), "float16", ptr=0x7f0000200000))
        with pytest.raises(TypeError, match="must have dtype float16"):
            k(FakeTorchTensor((4, 64), "float32", ptr=0x7f0000000000), b)
    finally:
        cuda.set_driver(old)


def outputs_at_new_addresses(monkeypatch, element="float32"):
    """Every tensor a JITKernel makes (new_empty) at a new address, as a
    caller that keeps its outputs sees them."""
    addresses = iter(range(0x7f0001000000, 1 << 48, 0x100000))
    monkeypatch.setattr(FakeTorchTensor, "new_empty", raising=False, value=lambda self, shape,
                        dtype=None: FakeTorchTensor(shape, element, ptr=next(addresses)))


def test_jit_outputs_at_new_addresses_still_hit_the_launch_cache(tmp_path, fake_torch,
                                                                 monkeypatch):
    # A caller that keeps its outputs gets each at a new address: the
    # launch cache keys on the inputs and writes the output's address into
    # the cached parameters; the inputs are still part of the key.
    drv = FakeDriver(param_sizes=[8, 8, 8, 8])
    old = cuda.set_driver(drv)
    try:
        fake_torch.float32 = "torch.float32"
        outputs_at_new_addresses(monkeypatch)
        k = jit_add(tmp_path)
        checked = []
        real = k.runtime._collect
        monkeypatch.setattr(k.runtime, "_collect", lambda args: checked.append(1) or real(args))
        a = FakeTorchTensor((4, 64), "float16", ptr=0x7f0000000000)
        b = FakeTorchTensor((8, 64), "float16", ptr=0x7f0000200000)
        outs = [k(a, b) for _ in range(3)]
        assert len(checked) == 1 and len({c.data_ptr() for c in outs}) == 3
        assert [launch["params"][2] for launch in drv.launches] == \
            [struct.pack("<Q", c.data_ptr()) for c in outs]
        assert all(launch["params"][:2] == drv.launches[0]["params"][:2]
                   for launch in drv.launches)
        # Other inputs: checked, and refused where wrong.
        k(FakeTorchTensor((4, 64), "float16", ptr=0x7f0000400000), b)
        assert len(checked) == 2 and drv.launches[-1]["params"][0] == \
            struct.pack("<Q", 0x7f0000400000)
        with pytest.raises(TypeError, match="must have dtype float16"):
            k(FakeTorchTensor((4, 64), "float32", ptr=0x7f0000000000), b)
    finally:
        cuda.set_driver(old)


def test_tma_written_outputs_at_new_addresses_hit_the_launch_cache(tmp_path, fake_torch,
                                                                   monkeypatch):
    # An output written through TMA has its address inside a descriptor:
    # a cached launch encodes the descriptor of each new address (the rest
    # of it as in the checked launch) and passes it in place of the old one.
    from tilemlir.jit import JITKernel
    d, meta = make_bundle(
        tmp_path,
        params=[{"name": "A", "kind": "tensor", "dtype": "float16", "shape": ["M", 64]},
                {"name": "C", "kind": "tensor", "dtype": "float16", "shape": ["M", 64],
                 "written": True}],
        kernel_args=[{"kind": "ptr", "param": 0},
                     {"kind": "tma", "param": 1, "box": [64, 64], "swizzle": 128,
                      "store": True},
                     {"kind": "dim", "param": 0, "dim": 0}],
        grid=["M // 64"])
    drv = FakeDriver(param_sizes=[8, 128, 8])
    old = cuda.set_driver(drv)
    try:
        cuda.clear_tensor_map_cache()
        fake_torch.float16 = "torch.float16"
        addresses = iter([0x7f0001000000, 0x7f0001100000, 0x7f0001000000])
        monkeypatch.setattr(FakeTorchTensor, "new_empty", raising=False, value=lambda self, shape,
                            dtype=None: FakeTorchTensor(shape, "float16", ptr=next(addresses)))
        k = JITKernel(None, [1], "cuda:sm_90a", None, d)
        checked = []
        real = k.runtime._collect
        monkeypatch.setattr(k.runtime, "_collect", lambda args: checked.append(1) or real(args))
        a = FakeTorchTensor((128, 64), "float16", ptr=0x7f0000000000)
        outs = [k(a) for _ in range(3)]
        assert len(checked) == 1
        # One descriptor a new address (the third call's is the first's).
        assert [e["address"] for e in drv.encodes] == [0x7f0001000000, 0x7f0001100000]
        assert all(e["dims"] == [64, 128] and e["strides"] == [128] for e in drv.encodes)
        for launch, c in zip(drv.launches, outs):
            assert struct.unpack_from("<Q", launch["params"][1]) == (c.data_ptr(),)
            assert launch["params"][0] == struct.pack("<Q", 0x7f0000000000)
            assert launch["params"][2] == struct.pack("<q", 128)
        # An output at an address TMA cannot take is refused, not launched.
        monkeypatch.setattr(FakeTorchTensor, "new_empty", raising=False, value=lambda self, shape,
                            dtype=None: FakeTorchTensor(shape, "float16", ptr=0x7f0001200008))
        with pytest.raises(ValueError, match="16-byte aligned base address"):
            k(a)
        assert len(drv.launches) == 3
    finally:
        cuda.set_driver(old)


def test_jit_output_size_not_fixed_by_inputs(tmp_path, fake_torch):
    k = jit_add(tmp_path, shape_c=("K", 64))
    a = FakeTorchTensor((4, 64), "float16", ptr=0x7f0000000000)
    b = FakeTorchTensor((8, 64), "float16", ptr=0x7f0000200000)
    with pytest.raises(ValueError, match="the size 'K' of output 'C' is not fixed by any input"):
        k(a, b)


@pytest.fixture
def fake_libcuda(tmp_path):
    """cuda.Driver over python/test/fake_libcuda.c (built here), and the
    library itself, to read what its launches received."""
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("needs a C compiler")
    so = tmp_path / "libcuda.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(so),
                    str(pathlib.Path(__file__).parent / "fake_libcuda.c")], check=True)
    lib = ctypes.CDLL(str(so))
    ctypes.c_int.in_dll(lib, "fake_num_params").value = 2
    return cuda.Driver(str(so)), lib


def _launched(lib):
    grid = (ctypes.c_uint * 3).in_dll(lib, "fake_grid")
    params = (ctypes.c_uint64 * 8).in_dll(lib, "fake_params")
    return {"launches": ctypes.c_long.in_dll(lib, "fake_launches").value,
            "grid": tuple(grid), "stream": ctypes.c_void_p.in_dll(lib, "fake_stream").value or 0,
            "params": tuple(params[:2])}


def test_launch_cache_over_a_real_driver(tmp_path, fake_torch, fake_libcuda):
    # The cached launch goes through Driver.bind_launch (raw ctypes calls
    # with arguments converted once): the driver still receives the grid,
    # the stream torch has current now, and the parameters of these
    # arguments.
    drv, lib = fake_libcuda
    streams = [0xABC]
    fake_torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: streams[-1])
    d, meta = make_bundle(
        tmp_path, grid=["N // 64", "2"],
        params=[{"name": "X", "kind": "tensor", "dtype": "float16", "shape": ["N"]},
                {"name": "n", "kind": "scalar", "dtype": "int64"}],
        kernel_args=[{"kind": "ptr", "param": 0}, {"kind": "scalar", "param": 1}])
    k = cuda.CudaKernel(d, meta, driver=drv)
    x = FakeTorchTensor((256,), "float16", ptr=0x7f0000400000)
    k(x, 5)
    k(x, 5)
    assert _launched(lib) == {"launches": 2, "grid": (4, 2, 1), "stream": 0xABC,
                              "params": (0x7f0000400000, 5)}
    assert len(k._fast) == 1
    streams.append(0xDEF)       # another current stream: the same entry
    k(x, 5)
    assert _launched(lib)["stream"] == 0xDEF and len(k._fast) == 1
    # Another scalar, pointer or shape: another entry, launched with its
    # own parameters.
    k(x, 6)
    assert _launched(lib)["params"] == (0x7f0000400000, 6)
    k(FakeTorchTensor((128,), "float16", ptr=0x7f0000800000), 6)
    assert _launched(lib)["params"] == (0x7f0000800000, 6) and _launched(lib)["grid"] == (2, 2, 1)
    # 5.0 equals 5 but is no integer: checked (and refused), not a hit.
    with pytest.raises(TypeError, match="'n' must be a int64 scalar"):
        k(x, 5.0)
    # Another current context: checked again, the module loaded there.
    drv.ctx_set_current(0x2222)
    k(x, 5)
    assert set(k._functions) == {0x1000, 0x2222} and _launched(lib)["launches"] == 6
    # An explicit stream is never cached.
    k(x, 5, stream=0x77)
    assert _launched(lib)["stream"] == 0x77


@pytest.mark.skipif(not STUB_LIBCUDA.exists(), reason="needs the toolkit's stub libcuda.so")
def test_bound_launch_failure_names_the_call():
    drv = cuda.Driver(str(STUB_LIBCUDA))
    launch = drv.bind_launch(0x10, (1, 1, 1), (32, 1, 1), 0)
    with pytest.raises(RuntimeError, match=r"^cuLaunchKernel failed: CUDA_ERROR_STUB_LIBRARY"):
        launch(0, (ctypes.c_void_p * 1)())
