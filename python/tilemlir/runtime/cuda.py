"""Runs CUDA bundles through the CUDA driver API (ctypes over libcuda.so.1).

Pure Python: needs neither the compiler nor cuda-python/cupy. torch is used
when the program has imported it (its tensors, its current stream); objects
with `__cuda_array_interface__` (cupy, numba, ...) work too.

A CUDA bundle's `bundle.json` has:

    "target": "cuda", "arch": "sm_90a",
    "binary": "kernel.cubin" (or a .ptx file), "entry": "<kernel symbol>",
    optional "ptx": "kernel.ptx" (loaded when the cubin is for another GPU),
    "params": [{"name", "kind": "tensor"|"scalar", "dtype", "shape": [int|name],
                "written": bool (optional: the kernel writes this tensor, so it may not
                be read-only nor overlap another argument)}],
    "kernel_args": what the kernel function takes, in order:
        {"kind": "ptr", "param": i}                  device pointer of tensor i
        {"kind": "dim", "param": i, "dim": d}        i64 size of dimension d
        {"kind": "stride", "param": i, "dim": d}     i64 stride, in elements
        {"kind": "scalar", "param": i, "dtype": t}   scalar i as type t
        {"kind": "const", "value": v}                i64 constant (a memref offset)
        {"kind": "tma", "param": i, "box": [...], "swizzle": 0|32|64|128,
         "elem_dtype": t, "store": bool}             a CUtensorMap, by value
                                                     (store: the kernel writes
                                                     tensor i through it)
    "grid": ["(N + 127) // 128", ...] (1 to 3 expressions), "block": [x, y, z],
    "shared_bytes": dynamic shared memory, optional "cluster": [x, y, z].

TMA arguments may also carry "element_strides" (default all 1),
"l2_promotion" (0, 64, 128 or 256 bytes; default 128) and "oob_fill"
("none" or "nan"; default "none"). "box" and "element_strides" are in the
order of the tensor's dimensions (outermost first, like "shape"); the
runtime reverses them into the driver's innermost-first order.

Every call into the driver goes through one `Driver` object (see
`get_driver`/`set_driver` and `CudaKernel(..., driver=...)`), so tests can put
a fake in its place.
"""

import ast
import collections
import ctypes
import numbers
import operator
import pathlib
import struct
import sys
import threading

from . import (check_shape, check_written, dynamic_names,
               torch_read_only)

__all__ = ["CudaKernel", "Driver", "CUtensorMap", "CUlaunchConfig", "CUlaunchAttribute",
           "GridExpr", "eval_grid_expr", "encode_tensor_map", "make_launch_config",
           "new_tensor_map", "get_driver", "set_driver", "dtype_info", "compute_capability"]

LIBCUDA = "libcuda.so.1"

# --- Values from cuda.h (CUDA 13.0, /usr/local/cuda/include/cuda.h) ---------------------

CUDA_SUCCESS = 0
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8     # CUfunction_attribute
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4               # CUlaunchAttributeID
CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9                 # CUpointer_attribute
CU_JIT_ERROR_LOG_BUFFER = 5                             # CUjit_option
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6

# CUtensorMapDataType
CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0
CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1
CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2
CU_TENSOR_MAP_DATA_TYPE_INT32 = 3
CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4
CU_TENSOR_MAP_DATA_TYPE_INT64 = 5
CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6
CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7
CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8
CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9
CU_TENSOR_MAP_INTERLEAVE_NONE = 0                       # CUtensorMapInterleave
# CUtensorMapSwizzle, by span in bytes: NONE, 32B, 64B, 128B
CU_TENSOR_MAP_SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}
# CUtensorMapL2promotion, by size in bytes: NONE, L2_64B, L2_128B, L2_256B
CU_TENSOR_MAP_L2_PROMOTION = {0: 0, 64: 1, 128: 2, 256: 3}
# CUtensorMapFloatOOBfill: NONE, NAN_REQUEST_ZERO_FMA
CU_TENSOR_MAP_FLOAT_OOB_FILL = {"none": 0, "nan": 1, "nan_request_zero_fma": 1}

CU_TENSOR_MAP_NUM_QWORDS = 16
TENSOR_MAP_ALIGN = 128      # cuda.h 13.0 declares alignas(128); the docs ask for 64
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
STATIC_SHARED_LIMIT = 48 * 1024   # above this a kernel must opt in to dynamic shared memory


# --- Structures ---------------------------------------------------------------------------

class CUtensorMap(ctypes.Structure):
    """The opaque 128-byte TMA descriptor. ctypes (before Python 3.13) cannot
    align a type beyond 8 bytes: make instances with new_tensor_map(), which
    places them on a 128-byte boundary."""
    _align_ = TENSOR_MAP_ALIGN   # honoured from Python 3.13 on, ignored before
    _fields_ = [("opaque", ctypes.c_uint64 * CU_TENSOR_MAP_NUM_QWORDS)]

    def to_bytes(self):
        return ctypes.string_at(ctypes.addressof(self), ctypes.sizeof(self))


def new_tensor_map():
    """A zeroed CUtensorMap at an address aligned to 128 bytes (so also 64)."""
    size = ctypes.sizeof(CUtensorMap)
    buf = (ctypes.c_char * (size + TENSOR_MAP_ALIGN))()
    offset = (-ctypes.addressof(buf)) % TENSOR_MAP_ALIGN
    tmap = CUtensorMap.from_buffer(buf, offset)   # keeps `buf` alive
    assert ctypes.addressof(tmap) % TENSOR_MAP_ALIGN == 0
    return tmap


class _Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class CUlaunchAttributeValue(ctypes.Union):
    # A 64-byte union; its members include pointers (CUevent), so it is 8-aligned.
    _fields_ = [("pad", ctypes.c_char * 64), ("clusterDim", _Dim3),
                ("cooperative", ctypes.c_int), ("_align", ctypes.c_void_p)]


class CUlaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int),          # CUlaunchAttributeID (an enum: 4 bytes)
                ("pad", ctypes.c_char * 4),    # char pad[8 - sizeof(CUlaunchAttributeID)]
                ("value", CUlaunchAttributeValue)]


class CUlaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint),
                ("gridDimZ", ctypes.c_uint), ("blockDimX", ctypes.c_uint),
                ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(CUlaunchAttribute)), ("numAttrs", ctypes.c_uint)]


def make_launch_config(grid, block, shared_bytes, stream, cluster=None):
    """A CUlaunchConfig (and the attribute array it points to, which must
    stay alive until the launch): returns (config, attrs)."""
    cfg = CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = block
    cfg.sharedMemBytes = shared_bytes
    cfg.hStream = stream or None
    attrs = None
    if cluster is not None:
        attrs = (CUlaunchAttribute * 1)()
        attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attrs[0].value.clusterDim.x, attrs[0].value.clusterDim.y, attrs[0].value.clusterDim.z = \
            cluster
        cfg.attrs = ctypes.cast(attrs, ctypes.POINTER(CUlaunchAttribute))
        cfg.numAttrs = 1
    else:
        cfg.numAttrs = 0
    return cfg, attrs


# --- The driver -----------------------------------------------------------------------------

# For when cuGetErrorName itself fails (as in the stub libcuda.so of the toolkit).
_ERROR_NAMES = {1: "CUDA_ERROR_INVALID_VALUE", 3: "CUDA_ERROR_NOT_INITIALIZED",
                34: "CUDA_ERROR_STUB_LIBRARY", 100: "CUDA_ERROR_NO_DEVICE"}

_P = ctypes.POINTER
_c_uint = ctypes.c_uint
_SIGNATURES = {
    "cuGetErrorName": [ctypes.c_int, _P(ctypes.c_char_p)],
    "cuGetErrorString": [ctypes.c_int, _P(ctypes.c_char_p)],
    "cuInit": [_c_uint],
    "cuDriverGetVersion": [_P(ctypes.c_int)],
    "cuDeviceGet": [_P(ctypes.c_int), ctypes.c_int],
    "cuDeviceGetCount": [_P(ctypes.c_int)],
    "cuDevicePrimaryCtxRetain": [_P(ctypes.c_void_p), ctypes.c_int],
    "cuCtxGetCurrent": [_P(ctypes.c_void_p)],
    "cuCtxSetCurrent": [ctypes.c_void_p],
    "cuCtxGetDevice": [_P(ctypes.c_int)],
    "cuDeviceGetAttribute": [_P(ctypes.c_int), ctypes.c_int, ctypes.c_int],
    "cuCtxSynchronize": [],
    "cuModuleLoadData": [_P(ctypes.c_void_p), ctypes.c_void_p],
    "cuModuleLoadDataEx": [_P(ctypes.c_void_p), ctypes.c_void_p, _c_uint, _P(ctypes.c_int),
                           _P(ctypes.c_void_p)],
    "cuModuleGetFunction": [_P(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p],
    "cuModuleUnload": [ctypes.c_void_p],
    "cuFuncSetAttribute": [ctypes.c_void_p, ctypes.c_int, ctypes.c_int],
    "cuFuncGetAttribute": [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_void_p],
    "cuLaunchKernel": [ctypes.c_void_p, _c_uint, _c_uint, _c_uint, _c_uint, _c_uint, _c_uint,
                       _c_uint, ctypes.c_void_p, _P(ctypes.c_void_p), _P(ctypes.c_void_p)],
    "cuLaunchKernelEx": [_P(CUlaunchConfig), ctypes.c_void_p, _P(ctypes.c_void_p),
                         _P(ctypes.c_void_p)],
    "cuTensorMapEncodeTiled": [_P(CUtensorMap), ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
                               _P(ctypes.c_uint64), _P(ctypes.c_uint64), _P(ctypes.c_uint32),
                               _P(ctypes.c_uint32), ctypes.c_int, ctypes.c_int, ctypes.c_int,
                               ctypes.c_int],
    "cuPointerGetAttribute": [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint64],
}


class Driver:
    """The CUDA driver calls the runtime makes, each a thin method over
    libcuda.so.1 that raises RuntimeError (naming the call, the error's name
    and its description) on failure. Handles are returned as Python ints
    (0 for NULL)."""

    def __init__(self, library=None):
        library = library or LIBCUDA
        try:
            self._lib = ctypes.CDLL(library)
        except OSError as e:
            raise RuntimeError(
                f"no CUDA driver (libcuda.so.1) found: loading {library} failed ({e}); running "
                "CUDA bundles needs an NVIDIA GPU with its driver installed") from None
        self.library = library
        self._fns = {}
        self._lock = threading.Lock()
        self._initialized = False
        self._primary = {}
        self._devices = {}

    def _fn(self, name):
        fn = self._fns.get(name)
        if fn is None:
            try:
                fn = getattr(self._lib, name)
            except AttributeError:
                raise RuntimeError(f"the CUDA driver ({self.library}) has no {name}: the driver "
                                   "is too old for this runtime (it needs CUDA 12.0 or newer)") \
                    from None
            fn.argtypes = _SIGNATURES[name]
            fn.restype = ctypes.c_int
            self._fns[name] = fn
        return fn

    def error_text(self, rc):
        """'CUDA_ERROR_X: description' for a CUresult."""
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        try:
            if self._fn("cuGetErrorName")(rc, ctypes.byref(name)) != CUDA_SUCCESS:
                name.value = None
            if self._fn("cuGetErrorString")(rc, ctypes.byref(text)) != CUDA_SUCCESS:
                text.value = None
        except RuntimeError:
            pass
        n = name.value.decode(errors="replace") if name.value else _ERROR_NAMES.get(rc)
        t = text.value.decode(errors="replace") if text.value else "no description"
        return f"{n} ({rc}): {t}" if n else f"CUresult {rc}: {t}"

    def check(self, call, rc, detail=""):
        if rc != CUDA_SUCCESS:
            raise RuntimeError(f"{call} failed: {self.error_text(rc)}{detail}")

    def _call(self, name, *args, what=None, detail=""):
        rc = self._fn(name)(*args)
        self.check(what or name, rc, detail)

    # Initialisation, devices and contexts.

    def init(self):
        if not self._initialized:
            with self._lock:
                if not self._initialized:
                    self._call("cuInit", 0)
                    self._initialized = True

    def driver_version(self):
        v = ctypes.c_int()
        self._call("cuDriverGetVersion", ctypes.byref(v))
        return v.value

    def device_get(self, ordinal):
        # An ordinal's CUdevice does not change in a process: asked once.
        dev = self._devices.get(ordinal)
        if dev is None:
            h = ctypes.c_int()
            self._call("cuDeviceGet", ctypes.byref(h), ordinal, what=f"cuDeviceGet({ordinal})")
            dev = self._devices[ordinal] = h.value
        return dev

    def primary_context(self, ordinal):
        """The retained primary context of a device (retained once, kept)."""
        with self._lock:
            ctx = self._primary.get(ordinal)
            if ctx is None:
                dev = self.device_get(ordinal)
                h = ctypes.c_void_p()
                self._call("cuDevicePrimaryCtxRetain", ctypes.byref(h), dev)
                ctx = self._primary[ordinal] = h.value or 0
            return ctx

    def ctx_get_current(self):
        # Asked on every launch (the launch cache's check): the call and its
        # check spelled out.
        h = ctypes.c_void_p()
        rc = self._fn("cuCtxGetCurrent")(ctypes.byref(h))
        if rc != CUDA_SUCCESS:
            self.check("cuCtxGetCurrent", rc)
        return h.value or 0

    def ctx_set_current(self, ctx):
        self._call("cuCtxSetCurrent", ctx or None)

    def ctx_get_device(self):
        dev = ctypes.c_int()
        self._call("cuCtxGetDevice", ctypes.byref(dev))
        return dev.value

    def device_compute_capability(self, dev):
        """The device's compute capability, (major, minor)."""
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._call("cuDeviceGetAttribute", ctypes.byref(major),
                   CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
        self._call("cuDeviceGetAttribute", ctypes.byref(minor),
                   CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
        return major.value, minor.value

    def device_arch(self, dev):
        """The device's architecture as a bundle names it: "sm_90" for
        compute capability 9.0."""
        return "sm_%d%d" % self.device_compute_capability(dev)

    def device_sm_count(self, dev):
        """The device's streaming multiprocessors."""
        count = ctypes.c_int()
        self._call("cuDeviceGetAttribute", ctypes.byref(count),
                   CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)
        return count.value

    def ctx_synchronize(self):
        self._call("cuCtxSynchronize")

    def pointer_device(self, ptr):
        """The device ordinal that owns a device pointer."""
        dev = ctypes.c_int()
        self._call("cuPointerGetAttribute", ctypes.byref(dev), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                   ptr, what="cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)")
        return dev.value

    # Modules and functions.

    def module_load_data(self, image, detail=""):
        """Loads a cubin, fatbin or NUL-terminated PTX image (bytes) into the
        current context; PTX compile errors come with the JIT's log."""
        buf = ctypes.create_string_buffer(bytes(image))   # adds the NUL PTX needs
        mod = ctypes.c_void_p()
        rc = self._fn("cuModuleLoadData")(ctypes.byref(mod), buf)
        if rc != CUDA_SUCCESS:
            log = self._jit_log(buf) if not _is_elf_or_fatbin(image) else ""
            self.check("cuModuleLoadData", rc, detail + (f"\nPTX JIT log:\n{log}" if log else ""))
        return mod.value or 0

    def _jit_log(self, buf):
        try:
            size = 16384
            log = ctypes.create_string_buffer(size)
            opts = (ctypes.c_int * 2)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            vals = (ctypes.c_void_p * 2)(ctypes.addressof(log), size)
            mod = ctypes.c_void_p()
            self._fn("cuModuleLoadDataEx")(ctypes.byref(mod), buf, 2, opts, vals)
            return log.value.decode(errors="replace").strip()
        except Exception:   # best effort: the error itself is reported by the caller
            return ""

    def module_unload(self, module):
        self._call("cuModuleUnload", module)

    def module_get_function(self, module, name):
        fn = ctypes.c_void_p()
        self._call("cuModuleGetFunction", ctypes.byref(fn), module, name.encode(),
                   what=f"cuModuleGetFunction({name!r})")
        return fn.value or 0

    def func_get_attribute(self, func, attr):
        value = ctypes.c_int()
        self._call("cuFuncGetAttribute", ctypes.byref(value), ctypes.c_int(attr),
                   ctypes.c_void_p(func))
        return value.value

    def func_set_attribute(self, func, attr, value):
        self._call("cuFuncSetAttribute", func, attr, value,
                   what=f"cuFuncSetAttribute(attribute {attr}, value {value})")

    # Launches.

    def launch_kernel(self, func, grid, block, shared_bytes, stream, params):
        # The hot call: the bound function and the check spelled out.
        rc = self._fn("cuLaunchKernel")(func, grid[0], grid[1], grid[2], block[0], block[1],
                                        block[2], shared_bytes, stream or None, params, None)
        if rc != CUDA_SUCCESS:
            self.check("cuLaunchKernel", rc)

    def launch_kernel_ex(self, config, func, params):
        self._call("cuLaunchKernelEx", ctypes.byref(config), func, params, None)

    # Tensor maps.

    def tensor_map_encode_tiled(self, tmap, dtype, rank, address, global_dim, global_strides,
                                box_dim, element_strides, interleave, swizzle, l2_promotion,
                                oob_fill):
        """cuTensorMapEncodeTiled; the arrays are sequences of ints in the
        driver's order (innermost dimension first)."""
        dims = (ctypes.c_uint64 * rank)(*global_dim)
        strides = (ctypes.c_uint64 * max(rank - 1, 1))(*global_strides)
        box = (ctypes.c_uint32 * rank)(*box_dim)
        estr = (ctypes.c_uint32 * rank)(*element_strides)
        self._call("cuTensorMapEncodeTiled", ctypes.byref(tmap), dtype, rank, address, dims,
                   strides, box, estr, interleave, swizzle, l2_promotion, oob_fill,
                   detail=f" (data type {dtype}, rank {rank}, address {address:#x}, dims "
                          f"{list(global_dim)}, byte strides {list(global_strides)}, box "
                          f"{list(box_dim)}, element strides {list(element_strides)}, swizzle "
                          f"{swizzle}, L2 promotion {l2_promotion}, oob fill {oob_fill})")


def _is_elf_or_fatbin(image):
    return bytes(image[:4]) in (b"\x7fELF", b"\x50\xed\x55\xba")


_driver = None
_driver_lock = threading.Lock()


def get_driver():
    """The process's Driver, made on first use; raises RuntimeError when
    libcuda.so.1 is absent."""
    global _driver
    with _driver_lock:
        if _driver is None:
            _driver = Driver()
        return _driver


def compute_capability(ordinal=0):
    """(major, minor) of CUDA device `ordinal`, or None where there is no
    GPU to ask (no libcuda.so.1, no device, a driver that does not start).
    Asks the driver (cuInit, cuDeviceGetAttribute): no torch, no context."""
    try:
        drv = get_driver()
        drv.init()
        return tuple(drv.device_compute_capability(drv.device_get(ordinal)))
    except RuntimeError:
        return None


def num_sms(ordinal=0):
    """The streaming multiprocessors of CUDA device `ordinal` (TileLang's
    driver.get_num_sms()): the block count of a persistent kernel
    (T.Persistent). Raises RuntimeError where libcuda.so.1 is absent."""
    drv = get_driver()
    drv.init()
    return drv.device_sm_count(drv.device_get(ordinal))


def set_driver(driver):
    """Replaces the process's Driver (tests put fakes here); returns the old one."""
    global _driver
    with _driver_lock:
        old, _driver = _driver, driver
        return old


# --- Data types -------------------------------------------------------------------------------

class _DType:
    __slots__ = ("name", "itemsize", "torch", "cai", "tmap", "kind")

    def __init__(self, name, itemsize, torch, cai, tmap, kind):
        self.name = name          # TileLang's name
        self.itemsize = itemsize
        self.torch = torch        # str(torch dtype) without "torch."
        self.cai = cai            # __cuda_array_interface__ typestr without byte order
        self.tmap = tmap          # CUtensorMapDataType
        self.kind = kind          # "float", "int", "uint", "bool"


_DTYPES = [
    _DType("float16", 2, "float16", "f2", CU_TENSOR_MAP_DATA_TYPE_FLOAT16, "float"),
    _DType("bfloat16", 2, "bfloat16", None, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, "float"),
    _DType("float32", 4, "float32", "f4", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, "float"),
    _DType("float64", 8, "float64", "f8", CU_TENSOR_MAP_DATA_TYPE_FLOAT64, "float"),
    _DType("float8_e4m3", 1, "float8_e4m3fn", None, CU_TENSOR_MAP_DATA_TYPE_UINT8, "float8"),
    _DType("float8_e5m2", 1, "float8_e5m2", None, CU_TENSOR_MAP_DATA_TYPE_UINT8, "float8"),
    _DType("int8", 1, "int8", "i1", CU_TENSOR_MAP_DATA_TYPE_UINT8, "int"),
    _DType("int16", 2, "int16", "i2", CU_TENSOR_MAP_DATA_TYPE_UINT16, "int"),
    _DType("int32", 4, "int32", "i4", CU_TENSOR_MAP_DATA_TYPE_INT32, "int"),
    _DType("int64", 8, "int64", "i8", CU_TENSOR_MAP_DATA_TYPE_INT64, "int"),
    _DType("uint8", 1, "uint8", "u1", CU_TENSOR_MAP_DATA_TYPE_UINT8, "uint"),
    _DType("uint16", 2, "uint16", "u2", CU_TENSOR_MAP_DATA_TYPE_UINT16, "uint"),
    _DType("uint32", 4, "uint32", "u4", CU_TENSOR_MAP_DATA_TYPE_UINT32, "uint"),
    _DType("uint64", 8, "uint64", "u8", CU_TENSOR_MAP_DATA_TYPE_UINT64, "uint"),
    _DType("bool", 1, "bool", "b1", CU_TENSOR_MAP_DATA_TYPE_UINT8, "bool"),
]
_BY_NAME = {d.name: d for d in _DTYPES}
_BY_NAME.update({
    # TileLang spellings, MLIR type names and torch names.
    "float": _BY_NAME["float32"], "half": _BY_NAME["float16"], "double": _BY_NAME["float64"],
    "fp16": _BY_NAME["float16"], "fp32": _BY_NAME["float32"], "bf16": _BY_NAME["bfloat16"],
    "f16": _BY_NAME["float16"], "f32": _BY_NAME["float32"], "f64": _BY_NAME["float64"],
    "float8_e4m3fn": _BY_NAME["float8_e4m3"], "e4m3_float8": _BY_NAME["float8_e4m3"],
    "f8E4M3FN": _BY_NAME["float8_e4m3"], "e5m2_float8": _BY_NAME["float8_e5m2"],
    "f8E5M2": _BY_NAME["float8_e5m2"], "int": _BY_NAME["int32"], "i8": _BY_NAME["int8"],
    "i16": _BY_NAME["int16"], "i32": _BY_NAME["int32"], "i64": _BY_NAME["int64"],
    "index": _BY_NAME["int64"], "i1": _BY_NAME["bool"], "boolean": _BY_NAME["bool"],
    "ui8": _BY_NAME["uint8"], "u8": _BY_NAME["uint8"],
})
_BY_CAI = {d.cai: d for d in _DTYPES if d.cai}
_BY_TORCH = {d.torch: d for d in _DTYPES}


def dtype_info(name):
    """The runtime's description of a dtype string (TileLang, MLIR or torch
    spelling)."""
    key = str(name)
    if key.startswith("torch."):
        key = key[len("torch."):]
    d = _BY_NAME.get(key) or _BY_TORCH.get(key)
    if d is None:
        raise TypeError(f"unknown dtype {name!r} in a CUDA bundle")
    return d


def _int_range(bits, signed):
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _bf16_bits(x):
    (u,) = struct.unpack("<I", struct.pack("<f", x))
    if (u & 0x7F800000) == 0x7F800000 and (u & 0x007FFFFF):
        return 0x7FC0                                   # NaN
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF   # round to nearest even


def pack_scalar(dtype, value, name="scalar"):
    """A ctypes object holding `value` as a kernel parameter of `dtype`.
    i32/u32/f32 take 4 bytes and 64-bit types 8; narrower types are widened
    into 4 bytes (zero- or sign-extended; the driver reads only the size the
    kernel declares, from the start, on a little-endian host)."""
    d = dtype_info(dtype)
    if d.kind == "float":
        v = float(value)
        if d.itemsize == 4:
            return ctypes.c_float(v)
        if d.itemsize == 8:
            return ctypes.c_double(v)
        if d.name == "float16":
            try:
                (bits,) = struct.unpack("<H", struct.pack("<e", v))
            except OverflowError:
                bits = 0x7C00 if v > 0 else 0xFC00
            return ctypes.c_uint32(bits)
        return ctypes.c_uint32(_bf16_bits(v))
    if d.kind in ("int", "uint", "bool"):
        if isinstance(value, float) and not float(value).is_integer():
            raise TypeError(f"argument '{name}' must be an integer ({d.name}), got {value!r}")
        v = int(value)
        if d.kind == "bool":
            return ctypes.c_uint32(1 if v else 0)
        lo, hi = _int_range(d.itemsize * 8, d.kind == "int")
        if not lo <= v <= hi:
            raise OverflowError(f"argument '{name}' = {v} does not fit in {d.name}")
        if d.itemsize == 8:
            return ctypes.c_int64(v) if d.kind == "int" else ctypes.c_uint64(v)
        return ctypes.c_int32(v) if d.kind == "int" else ctypes.c_uint32(v)
    raise TypeError(f"scalar parameters of type {d.name} are not supported by the CUDA runtime")


# --- Grid expressions ---------------------------------------------------------------------

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_NODE_WORDS = {ast.Call: "a function call", ast.Attribute: "an attribute",
               ast.Subscript: "a subscript", ast.Div: "'/' (use '//')", ast.Pow: "'**'",
               ast.Mod: "'%'", ast.Compare: "a comparison", ast.BoolOp: "'and'/'or'",
               ast.IfExp: "a conditional expression", ast.Lambda: "a lambda"}


class GridExpr:
    """An integer expression over dynamic dimension names, with + - * //,
    parentheses and integer literals only; parsed with `ast`, never eval'd."""

    MAX_LEN = 1000

    def __init__(self, text, names=None):
        self.text = text
        if isinstance(text, bool) or not isinstance(text, (int, str)):
            raise ValueError(f"grid expression {text!r} must be a string or an integer")
        if isinstance(text, int):
            self.names = frozenset()
            self._fn = lambda dims, v=text: v
            return
        if len(text) > self.MAX_LEN:
            raise ValueError(f"grid expression is longer than {self.MAX_LEN} characters")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError) as e:
            raise ValueError(f"grid expression {text!r} does not parse: {e}") from None
        used = set()
        try:
            self._fn = self._compile(tree.body, used, names)
        except RecursionError:
            raise ValueError(f"grid expression {text!r} is nested too deeply") from None
        self.names = frozenset(used)

    def _reject(self, node):
        op = getattr(node, "op", None)
        what = _NODE_WORDS.get(type(node)) or _NODE_WORDS.get(type(op))
        what = what or f"'{type(op or node).__name__}'"
        raise ValueError(f"grid expression {self.text!r} uses {what}, which is not allowed: grid "
                         "expressions may only use integers, dynamic dimension names, + - * // "
                         "and parentheses")

    def _compile(self, node, used, names):
        if isinstance(node, ast.Constant):
            v = node.value
            if type(v) is not int:
                raise ValueError(f"grid expression {self.text!r} has the literal {v!r}; only "
                                 "integers are allowed")
            return lambda dims: v
        if isinstance(node, ast.Name):
            n = node.id
            if names is not None and n not in names:
                known = ", ".join(sorted(names)) or "none"
                raise ValueError(f"grid expression {self.text!r} names '{n}', which is not a "
                                 f"dynamic dimension of the kernel (those are: {known})")
            used.add(n)

            def name(dims):
                try:
                    return dims[n]
                except KeyError:
                    raise ValueError(f"grid expression {self.text!r} needs the dimension "
                                     f"'{n}', which is not known") from None
            return name
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            op = _BINOPS[type(node.op)]
            lhs = self._compile(node.left, used, names)
            rhs = self._compile(node.right, used, names)
            if op is operator.floordiv:
                def div(dims):
                    b = rhs(dims)
                    if b == 0:
                        raise ValueError(f"grid expression {self.text!r} divides by zero "
                                         f"(dimensions {dims})")
                    return lhs(dims) // b
                return div
            return lambda dims: op(lhs(dims), rhs(dims))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            op = _UNARY[type(node.op)]
            arg = self._compile(node.operand, used, names)
            return lambda dims: op(arg(dims))
        self._reject(node)

    def __call__(self, dims):
        return self._fn(dims)

    def __repr__(self):
        return f"GridExpr({self.text!r})"


def eval_grid_expr(text, dims):
    """Evaluates a grid expression with the given dimensions (a dict)."""
    return GridExpr(text, set(dims))(dims)


# --- Tensor maps --------------------------------------------------------------------------

_TMAP_CACHE_SIZE = 1024
_tmap_cache = collections.OrderedDict()
_tmap_lock = threading.Lock()


def clear_tensor_map_cache():
    with _tmap_lock:
        _tmap_cache.clear()


def encode_tensor_map(ptr, dtype, shape, strides, box, *, element_strides=None, swizzle=0,
                      l2_promotion=128, oob_fill="none", driver=None, name="tensor"):
    """A tiled TMA descriptor (cuTensorMapEncodeTiled) for the tensor at
    device address `ptr`. shape, strides (in BYTES), box and element_strides
    are in the tensor's order (outermost dimension first, like torch and
    numpy); the innermost dimension must be contiguous. Cached per (pointer,
    dtype, shape, strides, box, swizzle, ...): repeated calls return the same
    CUtensorMap object, which callers must not modify."""
    d = dtype_info(dtype)
    shape, strides, box = tuple(map(int, shape)), tuple(map(int, strides)), tuple(map(int, box))
    rank = len(shape)
    estr = tuple(map(int, element_strides)) if element_strides is not None else (1,) * rank
    oob = str(oob_fill).lower()
    key = (ptr, d.name, shape, strides, box, estr, swizzle, l2_promotion, oob)
    with _tmap_lock:
        hit = _tmap_cache.get(key)
        if hit is not None:
            _tmap_cache.move_to_end(key)
            return hit
    _check_tensor_map(d, ptr, shape, strides, box, estr, swizzle, l2_promotion, oob, name)
    drv = driver if driver is not None else get_driver()
    drv.init()
    tmap = new_tensor_map()
    drv.tensor_map_encode_tiled(
        tmap, d.tmap, rank, ptr, shape[::-1], strides[:-1][::-1], box[::-1], estr[::-1],
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE[swizzle],
        CU_TENSOR_MAP_L2_PROMOTION[l2_promotion], CU_TENSOR_MAP_FLOAT_OOB_FILL[oob])
    with _tmap_lock:
        _tmap_cache[key] = tmap
        while len(_tmap_cache) > _TMAP_CACHE_SIZE:
            _tmap_cache.popitem(last=False)
    return tmap


def _check_tensor_map(d, ptr, shape, strides, box, estr, swizzle, l2, oob, name):
    """The documented requirements of cuTensorMapEncodeTiled (interleave
    none), checked here so that errors say what is wrong."""
    rank = len(shape)
    where = f"TMA descriptor for '{name}'"
    if not 1 <= rank <= 5:
        raise ValueError(f"{where}: TMA supports ranks 1 to 5, got {rank}")
    if len(strides) != rank or len(box) != rank or len(estr) != rank:
        raise ValueError(f"{where}: shape {shape}, strides {strides}, box {box} and element "
                         f"strides {estr} must have one entry per dimension")
    if swizzle not in CU_TENSOR_MAP_SWIZZLE:
        raise ValueError(f"{where}: swizzle must be 0, 32, 64 or 128 (bytes), got {swizzle!r}")
    if l2 not in CU_TENSOR_MAP_L2_PROMOTION:
        raise ValueError(f"{where}: l2_promotion must be 0, 64, 128 or 256, got {l2!r}")
    if oob not in CU_TENSOR_MAP_FLOAT_OOB_FILL:
        raise ValueError(f"{where}: oob_fill must be 'none' or 'nan', got {oob!r}")
    if CU_TENSOR_MAP_FLOAT_OOB_FILL[oob] and d.tmap not in (
            CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            CU_TENSOR_MAP_DATA_TYPE_FLOAT64, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16):
        raise ValueError(f"{where}: NaN out-of-bounds fill needs a floating-point type, "
                         f"not {d.name}")
    if ptr % 16:
        raise ValueError(f"{where}: TMA needs a 16-byte aligned base address, got {ptr:#x} "
                         "(a view that starts inside another tensor?)")
    for i, s in enumerate(shape):
        if not 1 <= s <= 1 << 32:
            raise ValueError(f"{where}: dimension {i} has size {s}; TMA needs sizes in "
                             "[1, 2^32]")
    if strides[-1] != d.itemsize:
        raise ValueError(f"{where}: the innermost dimension must be contiguous (stride "
                         f"{d.itemsize} bytes), got a stride of {strides[-1]} bytes")
    for i, s in enumerate(strides[:-1]):
        if s % 16 or not 0 < s < 1 << 40:
            raise ValueError(f"{where}: the stride of dimension {i} is {s} bytes; TMA needs "
                             "strides that are multiples of 16 bytes and below 2^40 (pad the "
                             "innermost dimension?)")
    for i, b in enumerate(box):
        if not 1 <= b <= 256:
            raise ValueError(f"{where}: box dimension {i} is {b}; TMA boxes are 1 to 256 "
                             "elements per dimension")
    inner = box[-1] * d.itemsize
    if inner % 16:
        raise ValueError(f"{where}: the box's innermost extent is {inner} bytes; it must be a "
                         "multiple of 16 bytes")
    if swizzle and inner > swizzle:
        raise ValueError(f"{where}: the box's innermost extent is {inner} bytes, more than the "
                         f"{swizzle}-byte swizzle span")
    for i, e in enumerate(estr):
        if not 1 <= e <= 8:
            raise ValueError(f"{where}: element stride {e} of dimension {i} is not in [1, 8]")


def _tma_source(v, item, name, store=False):
    """(address, shape, byte strides, copy) that a TMA descriptor of tensor
    `v` reads: the tensor itself when its base and row strides are multiples
    of 16 bytes (what TMA requires), else a copy with each row padded to 16
    bytes (made with torch on its current stream, kept until the launch is
    enqueued). The descriptor keeps the tensor's own shape, so the padding
    is never read. An empty tensor (K = 0, say) is never read either, but
    its descriptor still needs sizes >= 1 and valid strides. A tensor that
    the kernel writes through TMA (`store`) cannot be a copy."""
    strides = [s * item for s in v.strides]
    if 0 in v.shape:
        rank = len(strides)
        return (v.ptr, [max(1, d) for d in v.shape],
                [16 * (rank - 1 - i) or item for i in range(rank)], None)
    if v.ptr % 16 == 0 and all(s % 16 == 0 for s in strides[:-1]):
        return v.ptr, v.shape, strides, None
    if store:
        raise ValueError(f"argument '{name}' is written with TMA, which needs a 16-byte "
                         f"aligned base and rows that are multiples of 16 bytes (shape "
                         f"{v.shape}, byte strides {strides}, address {v.ptr:#x}); pass such "
                         "a tensor, or compile its store with T.copy(..., disable_tma=True)")
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(v.obj, torch.Tensor):
        raise ValueError(f"argument '{name}' is read with TMA, which needs a 16-byte aligned "
                         f"base and rows that are multiples of 16 bytes (shape {v.shape}, "
                         f"{item}-byte elements); pass a torch tensor (the runtime then pads "
                         "a copy) or pad the innermost dimension")
    per = 16 // item
    inner = v.shape[-1]
    padded = torch.empty(tuple(v.shape[:-1]) + (-(-inner // per) * per,),
                         dtype=v.obj.dtype, device=v.obj.device)
    padded[..., :inner].copy_(v.obj)
    return padded.data_ptr(), v.shape, [s * item for s in padded.stride()], padded


# --- Tensors ------------------------------------------------------------------------------

class _Tensor:
    """What the runtime needs of a tensor argument."""
    __slots__ = ("ptr", "shape", "strides", "dtype", "device", "contiguous", "obj")

    def __init__(self, ptr, shape, strides, dtype, device, contiguous, obj):
        self.ptr = ptr                # int device address
        self.shape = shape            # tuple of ints
        self.strides = strides        # tuple of ints, in elements (None: not whole elements)
        self.dtype = dtype            # a _DType, or None when not one the runtime knows
        self.device = device          # ordinal, or None when unknown (ask the driver)
        self.contiguous = contiguous
        self.obj = obj


def _c_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def _is_c_contiguous(shape, strides):
    if any(s == 0 for s in shape):
        return True
    return all(st == want for sz, st, want in zip(shape, strides, _c_strides(shape)) if sz != 1)


_TORCH_DTYPES = {}   # torch.dtype -> _DType, filled on first use


def _as_tensor(name, a):
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(a, torch.Tensor):
        if not a.is_cuda:
            raise TypeError(f"argument '{name}' is a torch tensor on {a.device}; CUDA kernels "
                            "need tensors on a cuda device (use .cuda())")
        # The launch path is hot: torch's own types (torch.Size, ints) are
        # used as they are, and dtypes are looked up by object.
        d = _TORCH_DTYPES.get(a.dtype)
        if d is None:
            dt = str(a.dtype)
            d = _BY_TORCH.get(dt[len("torch."):] if dt.startswith("torch.") else dt)
            _TORCH_DTYPES[a.dtype] = d
        return _Tensor(a.data_ptr(), tuple(a.shape), a.stride(), d, a.get_device(),
                       a.is_contiguous(), a)
    iface = getattr(a, "__cuda_array_interface__", None)
    if iface is not None:
        shape = tuple(int(s) for s in iface["shape"])
        typestr = iface["typestr"]
        d = _BY_CAI.get(typestr[1:])
        itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
        ptr = int(iface["data"][0] or 0)
        st = iface.get("strides")
        if st is None:
            strides, contiguous = _c_strides(shape), True
        else:
            strides = (tuple(int(s) // itemsize for s in st)
                       if all(int(s) % itemsize == 0 for s in st) else None)
            contiguous = strides is not None and _is_c_contiguous(shape, strides)
        return _Tensor(ptr, shape, strides, d, None, contiguous, a)
    kind = f"{type(a).__module__}.{type(a).__name__}"
    hint = " (host memory)" if hasattr(a, "__array_interface__") else ""
    raise TypeError(f"argument '{name}' must be a CUDA tensor (a torch tensor on a cuda device, "
                    f"or an object with __cuda_array_interface__), got {kind}{hint}")


def _span(t):
    """(start, end, why read-only) of a contiguous tensor's device memory.
    Read-only: a __cuda_array_interface__ that says so, or a torch tensor
    that torch itself would not let an in-place op write (a leaf that
    requires grad while grad mode is on, an inference tensor outside
    inference mode)."""
    n = 1
    for s in t.shape:
        n *= s
    obj = t.obj
    why = torch_read_only(obj)
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(obj, torch.Tensor):
        data = getattr(obj, "__cuda_array_interface__", {}).get("data")
        if data and len(data) > 1 and data[1]:
            why = "its __cuda_array_interface__ is read-only"
    return t.ptr, t.ptr + n * (t.dtype.itemsize if t.dtype else 1), why


def _check_scalar(name, d, a):
    is_bool = isinstance(a, bool) or type(a).__name__ == "bool_"   # numpy.bool_ too
    if d.kind == "bool":
        ok = is_bool or isinstance(a, numbers.Integral)
    elif d.kind == "float":
        ok = isinstance(a, numbers.Real) and not is_bool
    else:
        ok = isinstance(a, numbers.Integral) and not is_bool
    if not ok:
        raise TypeError(f"argument '{name}' must be a {d.name} scalar, got "
                        f"{type(a).__name__} {a!r}")
    if d.kind in ("int", "uint"):
        lo, hi = _int_range(d.itemsize * 8, d.kind == "int")
        if not lo <= int(a) <= hi:
            raise ValueError(f"argument '{name}' = {a} does not fit in {d.name}")
    return a


def _dtype_name_of(t):
    if t.dtype is not None:
        return t.dtype.name
    obj = t.obj
    if hasattr(obj, "__cuda_array_interface__"):
        return obj.__cuda_array_interface__["typestr"]
    return str(getattr(obj, "dtype", "?"))


# Scalar types of arguments the launch cache takes (by value in its key).
_FAST_SCALARS = frozenset((int, float, bool))


# --- Kernels ------------------------------------------------------------------------------

class CudaKernel:
    """A loaded CUDA kernel. Call it with CUDA tensors (torch, or objects
    with __cuda_array_interface__) and Python scalars in the order of the
    kernel's parameters; it launches on torch's current stream (when torch
    is imported; else the default stream) and does not synchronize."""

    def __init__(self, path, meta, driver=None):
        self.path = pathlib.Path(path)
        self.meta = meta
        self.entry = meta["entry"]
        self.arch = meta.get("arch")
        self.params = meta["params"]
        self._driver = driver
        where = f"CUDA bundle {self.path} ({self.entry})"
        if meta.get("target", "cuda").split()[0] != "cuda":
            raise ValueError(f"{where} is for target {meta.get('target')!r}, not 'cuda'")
        binary = self.path / meta["binary"]
        try:
            self.image = binary.read_bytes()
        except OSError as e:
            raise ValueError(f"{where}: cannot read its binary {binary}: {e}") from None

        self._dtypes = []
        dyn = set()
        for i, p in enumerate(self.params):
            if p["kind"] not in ("tensor", "scalar"):
                raise ValueError(f"{where}: parameter {i} has unknown kind {p['kind']!r}")
            self._dtypes.append(dtype_info(p["dtype"]))
            if p["kind"] == "tensor":
                dyn.update(dynamic_names(p["shape"]))
        self.dynamic_dims = frozenset(dyn)
        # What _collect checks, by parameter: (name, scalar?, dtype, shape,
        # the shape as a tuple where it is static, else None).
        self._checks = tuple(
            (p["name"], p["kind"] == "scalar", d, p.get("shape"),
             tuple(p["shape"]) if p["kind"] == "tensor" and
             all(isinstance(x, int) for x in p["shape"]) else None)
            for p, d in zip(self.params, self._dtypes))
        self._args = [self._compile_arg(i, a, where) for i, a in enumerate(meta["kernel_args"])]

        grid = meta["grid"]
        if not 1 <= len(grid) <= 3:
            raise ValueError(f"{where}: grid must have 1 to 3 entries, got {grid!r}")
        self._grid = [GridExpr(g, self.dynamic_dims) for g in grid]
        block = [int(b) for b in meta["block"]]
        if not 1 <= len(block) <= 3 or any(b < 1 for b in block):
            raise ValueError(f"{where}: block must be 1 to 3 positive sizes, got {block!r}")
        self.block = tuple(block + [1] * (3 - len(block)))
        self.shared_bytes = int(meta.get("shared_bytes", 0) or 0)
        if self.shared_bytes < 0:
            raise ValueError(f"{where}: shared_bytes is negative")
        cluster = meta.get("cluster")
        if cluster is not None:
            cluster = [int(c) for c in cluster]
            if not 1 <= len(cluster) <= 3 or any(c < 1 for c in cluster):
                raise ValueError(f"{where}: cluster must be 1 to 3 positive sizes, got "
                                 f"{cluster!r}")
            cluster = tuple(cluster + [1] * (3 - len(cluster)))
        self.cluster = cluster
        self._functions = {}        # context handle -> CUfunction
        self._lock = threading.Lock()
        self._fast = {}             # see launch()
        self._written = tuple(p.get("written") is True for p in self.params)

    def _compile_arg(self, i, a, where):
        kind = a.get("kind")
        if kind == "const":
            if not isinstance(a.get("value"), int):
                raise ValueError(f"{where}: kernel argument {i} (const) needs an integer value")
            return dict(a)
        p_index = a.get("param")
        if not isinstance(p_index, int) or not 0 <= p_index < len(self.params):
            raise ValueError(f"{where}: kernel argument {i} names parameter {p_index!r}, which "
                             "does not exist")
        p = self.params[p_index]
        a = dict(a)
        if kind in ("ptr", "dim", "stride", "tma"):
            if p["kind"] != "tensor":
                raise ValueError(f"{where}: kernel argument {i} ({kind}) needs a tensor, but "
                                 f"parameter '{p['name']}' is a scalar")
            if kind in ("dim", "stride"):
                d = a.get("dim")
                if not isinstance(d, int) or not 0 <= d < len(p["shape"]):
                    raise ValueError(f"{where}: kernel argument {i} takes dimension {d!r} of "
                                     f"'{p['name']}', which has rank {len(p['shape'])}")
            if kind == "tma":
                rank = len(p["shape"])
                a["elem"] = dtype_info(a.get("elem_dtype", p["dtype"]))
                if a["elem"].itemsize != self._dtypes[p_index].itemsize:
                    raise ValueError(f"{where}: kernel argument {i}: TMA element type "
                                     f"{a['elem'].name} and tensor '{p['name']}' "
                                     f"({p['dtype']}) differ in size")
                a["box"] = tuple(int(b) for b in a["box"])
                es = a.get("element_strides")
                a["element_strides"] = tuple(int(e) for e in es) if es else (1,) * rank
                if len(a["box"]) != rank or len(a["element_strides"]) != rank:
                    raise ValueError(f"{where}: kernel argument {i}: box {list(a['box'])} and "
                                     f"element strides must have {rank} entries, like "
                                     f"'{p['name']}'")
                a["swizzle"] = int(a.get("swizzle", 0) or 0)
                if a["swizzle"] not in CU_TENSOR_MAP_SWIZZLE:
                    raise ValueError(f"{where}: kernel argument {i}: swizzle must be 0, 32, 64 "
                                     f"or 128, got {a['swizzle']!r}")
                a["l2_promotion"] = int(a.get("l2_promotion", 128))
                a["store"] = bool(a.get("store", False))
                a["oob_fill"] = str(a.get("oob_fill", "none")).lower()
        elif kind == "scalar":
            if p["kind"] != "scalar":
                raise ValueError(f"{where}: kernel argument {i} (scalar) names tensor "
                                 f"'{p['name']}'")
            a["dtype"] = dtype_info(a.get("dtype", p["dtype"])).name
            pack_scalar(a["dtype"], 0, p["name"])   # rejects types the runtime cannot pass
        else:
            raise ValueError(f"{where}: kernel argument {i} has unknown kind {kind!r}")
        return a

    @property
    def driver(self):
        return self._driver if self._driver is not None else get_driver()

    # Arguments.

    def _collect(self, args):
        """Checks the arguments; returns ([_Tensor or scalar or None], dims)."""
        if len(args) != len(self.params):
            raise TypeError(f"kernel '{self.entry}' takes {len(self.params)} arguments "
                            f"({', '.join(p['name'] for p in self.params)}), got {len(args)}")
        dims = {}
        values = []
        device = None
        for (name, scalar, d, shape, static), a in zip(self._checks, args):
            if a is None:
                values.append(None)
                continue
            if scalar:
                values.append(_check_scalar(name, d, a))
                continue
            t = _as_tensor(name, a)
            if t.dtype is not d:
                raise TypeError(f"argument '{name}' must have dtype {d.name}, got "
                                f"{_dtype_name_of(t)}")
            if static is None or t.shape != static:
                check_shape(name, shape, t.shape, dims)   # binds dynamic sizes, or says why not
            if not t.contiguous:
                raise ValueError(f"argument '{name}' must be contiguous (use .contiguous())")
            if t.device is not None:
                if device is None:
                    device = t.device
                elif t.device != device:
                    raise ValueError(f"argument '{name}' is on cuda:{t.device}, but other "
                                     f"arguments are on cuda:{device}")
            values.append(t)
        check_written(self.params, [_span(v) if isinstance(v, _Tensor) else None
                                    for v in values])
        return values, dims

    def check_args(self, args):
        """Checks devices, dtypes, ranks, sizes and layout of the arguments
        (None entries are skipped); returns the dynamic dimensions by name."""
        return self._collect(args)[1]

    def grid_dims(self, dims):
        """The launch grid (x, y, z) for the given dynamic dimensions."""
        grid = []
        for g in self._grid:
            v = g(dims)
            if not 0 <= v < 1 << 32:
                raise ValueError(f"grid expression {g.text!r} gives {v} with dimensions {dims}")
            grid.append(v)
        return tuple(grid + [1] * (3 - len(grid)))

    def pack_args(self, values, driver=None, keep=None):
        """The kernel's parameters as ctypes objects, in order (values as
        returned by _collect: tensors wrapped, scalars as they are). Padded
        copies that TMA arguments need (see _tma_source) are appended to
        `keep`, which must live until the launch is enqueued."""
        out = []
        for i, a in enumerate(self._args):
            if a["kind"] == "const":
                out.append(ctypes.c_int64(a["value"]))
                continue
            v = values[a["param"]]
            p = self.params[a["param"]]
            if v is None:
                raise ValueError(f"argument '{p['name']}' is missing (None)")
            kind = a["kind"]
            if kind == "ptr":
                out.append(ctypes.c_void_p(v.ptr))
            elif kind == "dim":
                out.append(ctypes.c_int64(v.shape[a["dim"]]))
            elif kind == "stride":
                out.append(ctypes.c_int64(v.strides[a["dim"]]))
            elif kind == "scalar":
                out.append(pack_scalar(a["dtype"], v, p["name"]))
            else:   # tma
                item = a["elem"].itemsize
                ptr, shape, strides, copy = _tma_source(v, item, p["name"],
                                                        store=a.get("store", False))
                tmap = encode_tensor_map(
                    ptr, a["elem"].name, shape, strides, a["box"],
                    element_strides=a["element_strides"], swizzle=a["swizzle"],
                    l2_promotion=a["l2_promotion"], oob_fill=a["oob_fill"],
                    driver=driver if driver is not None else self.driver, name=p["name"])
                if copy is not None:
                    if keep is None:
                        raise ValueError(f"argument '{p['name']}' needs a padded copy for TMA; "
                                         "pass pack_args a `keep` list to hold it")
                    keep.append(copy)
                out.append(tmap)
        return out

    # Launching.

    def __call__(self, *args, stream=None):
        self.launch(args, stream=stream)

    def _device(self, values, drv):
        for v in values:
            if isinstance(v, _Tensor):
                if v.device is not None:
                    return v.device
                if v.ptr:
                    return drv.pointer_device(v.ptr)
        torch = sys.modules.get("torch")
        if torch is not None:
            return torch.cuda.current_device()
        return drv.ctx_get_device() if drv.ctx_get_current() else 0

    def _stream(self, stream, device):
        if stream is None:
            torch = sys.modules.get("torch")
            if torch is not None:
                # The raw handle, without building a torch.cuda.Stream (a
                # few microseconds a launch); older torch lacks it.
                raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
                if raw is not None:
                    return raw(device)
                return int(torch.cuda.current_stream(device).cuda_stream)
            return 0
        if isinstance(stream, int):
            return stream
        for attr in ("cuda_stream", "ptr", "handle"):
            h = getattr(stream, attr, None)
            if h is not None:
                return int(h.value if isinstance(h, ctypes.c_void_p) else h) or 0
        raise TypeError(f"stream must be a CUstream handle (int), a torch.cuda.Stream or an "
                        f"object with .ptr/.handle, got {type(stream).__name__}")

    def _function(self, drv, ctx):
        fn = self._functions.get(ctx)
        if fn is not None:
            return fn
        with self._lock:
            fn = self._functions.get(ctx)
            if fn is None:
                detail = f" (bundle {self.path}, binary {self.meta['binary']}, arch {self.arch})"
                ptx = self.meta.get("ptx")

                def load_ptx():
                    return drv.module_load_data((self.path / ptx).read_bytes(),
                                                f" (bundle {self.path}, {ptx})")
                # A cubin runs only on its own architecture; the bundle's PTX
                # (if any) is compiled by the driver for this GPU. A cubin
                # for another one (sm_80 code on an sm_90 GPU) is not even
                # tried: compute-sanitizer reports the failed load.
                if ptx and self.arch and hasattr(drv, "device_arch") and \
                        drv.device_arch(drv.ctx_get_device()) != self.arch.rstrip("a"):
                    module = load_ptx()
                else:
                    try:
                        module = drv.module_load_data(self.image, detail)
                    except RuntimeError as e:
                        if "NO_BINARY_FOR_GPU" not in str(e) or not ptx:
                            raise
                        module = load_ptx()
                try:
                    fn = drv.module_get_function(module, self.entry)
                    # The opt-in covers static plus dynamic shared memory.
                    static = (drv.func_get_attribute(fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
                              if self.shared_bytes and hasattr(drv, "func_get_attribute") else 0)
                    if self.shared_bytes + static > STATIC_SHARED_LIMIT:
                        drv.func_set_attribute(
                            fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                            self.shared_bytes)
                except RuntimeError:
                    try:
                        drv.module_unload(module)
                    except RuntimeError:
                        pass
                    raise
                self._functions[ctx] = fn
        return fn

    # Launches with the arguments of a recent one (same pointers, shapes,
    # strides and dtypes of the torch tensors, same scalars, same context
    # and stream) reuse its checked, packed parameters: the hot path of a
    # framework calling a kernel in a loop. Keyed by what the parameters
    # depend on, so a hit needs no other check.
    _FAST_ENTRIES = 64

    def _enqueue(self, drv, fn, grid, handle, params):
        """Launches `fn` on stream `handle` (with the cluster size, if any)."""
        if self.cluster is not None:
            config, attrs = make_launch_config(grid, self.block, self.shared_bytes, handle,
                                               self.cluster)
            drv.launch_kernel_ex(config, fn, params)
            del attrs      # kept alive until the launch has read it
        else:
            drv.launch_kernel(fn, grid, self.block, self.shared_bytes, handle, params)

    def _fast_key(self, args, stream):
        """The launch cache's key for these arguments, or None where they
        cannot be cached: not torch tensors and Python scalars, an
        explicit stream, or a tensor the kernel writes that torch would
        not let it (left to the checked path, which refuses it)."""
        torch = sys.modules.get("torch")
        if torch is None or stream is not None or len(args) != len(self.params):
            return None
        tensor = torch.Tensor
        key = []
        for a, written in zip(args, self._written):
            if isinstance(a, tensor):
                if written and (a.requires_grad or a.is_inference()) and torch_read_only(a):
                    return None
                # is_contiguous() follows from the shape and the strides.
                key.append((a.data_ptr(), a.shape, a.stride(), a.dtype, a.get_device()))
            elif type(a) in _FAST_SCALARS:
                key.append((type(a), a))
            else:
                return None
        key = tuple(key)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def launch(self, args, stream=None):
        """Checks the arguments, then launches the kernel (asynchronously)."""
        key = self._fast_key(args, stream)
        if key is not None:
            hit = self._fast.get(key)
            if hit is not None:
                ctx, device, fn, grid, params, objs = hit
                drv = self.driver
                if drv.ctx_get_current() == ctx:
                    self._enqueue(drv, fn, grid, self._stream(None, device), params)
                    return
        self._launch_checked(args, stream, key)

    def _launch_checked(self, args, stream, key):
        values, dims = self._collect(args)
        grid = self.grid_dims(dims)
        if self.cluster is not None:
            for axis, g, c in zip("xyz", grid, self.cluster):
                if g % c:
                    raise ValueError(f"kernel '{self.entry}': grid {grid} is not a multiple of "
                                     f"the cluster {self.cluster} along {axis}")
        if 0 in grid:
            return      # nothing to do (a launch with an empty grid is an error)
        drv = self.driver
        drv.init()
        device = self._device(values, drv)
        previous = drv.ctx_get_current()
        if previous and drv.ctx_get_device() == drv.device_get(device):
            ctx, restore = previous, None       # torch's (or the caller's) context
        else:
            ctx = drv.primary_context(device)
            drv.ctx_set_current(ctx)
            restore = previous or None
        # Padded copies for TMA (made on torch's current stream): dropped
        # once the launch is enqueued, torch reuses their memory only after
        # the kernel, in stream order.
        keep = []
        try:
            fn = self._function(drv, ctx)
            objs = self.pack_args(values, drv, keep)
            params = (ctypes.c_void_p * max(len(objs), 1))(
                *[ctypes.addressof(o) for o in objs])
            handle = self._stream(stream, device)
            self._enqueue(drv, fn, grid, handle, params)
            # Remembered for the next launch with the same arguments, unless
            # it needed padded copies (made anew for each launch).
            if key is not None and not keep and restore is None:
                if len(self._fast) >= self._FAST_ENTRIES:
                    self._fast.pop(next(iter(self._fast)))
                self._fast[key] = (ctx, device, fn, grid, params, objs)
            del objs
        finally:
            keep.clear()
            if restore is not None:
                drv.ctx_set_current(restore)
