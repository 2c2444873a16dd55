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

A function with several T.Kernel blocks adds "kernels": one entry per kernel,
in order, each with its own "entry", "binary", "ptx", "kernel_args", "grid",
"block", "shared_bytes" and "cluster" (the first one's also at the top
level); load_bundle gives a runtime.KernelSequence that launches them one
after another on the same stream.

TMA arguments may also carry "element_strides" (default all 1),
"l2_promotion" (0, 64, 128 or 256 bytes; default 128) and "oob_fill"
("none" or "nan"; default "none"). "box" and "element_strides" are in the
order of the tensor's dimensions (outermost first, like "shape"); the
runtime reverses them into the driver's innermost-first order.

Every call into the driver goes through one `Driver` object (see
`get_driver`/`set_driver` and `CudaKernel(..., driver=...)`), so tests can put
a fake in its place.
"""

import collections
import ctypes
import functools
import sys
import threading

from . import torch_read_only
# Shared with the HIP runtime; names kept here for the callers of cuda.py.
from .kernel_args import (BundleKernel, DriverLibrary, GridExpr, _c_strides, _FAST_SCALARS,  # noqa: F401
                          _Tensor, _torch_stream_getter, dtype_info, eval_grid_expr,
                          pack_scalar)

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


class Driver(DriverLibrary):
    """The CUDA driver calls the runtime makes, each a thin method over
    libcuda.so.1 that raises RuntimeError (naming the call, the error's name
    and its description) on failure. Handles are returned as Python ints
    (0 for NULL)."""

    INIT = "cuInit"

    def __init__(self, library=None):
        library = library or LIBCUDA
        try:
            self._lib = ctypes.CDLL(library)
        except OSError as e:
            raise RuntimeError(
                f"no CUDA driver (libcuda.so.1) found: loading {library} failed ({e}); running "
                "CUDA bundles needs an NVIDIA GPU with its driver installed") from None
        self.library = library
        self._init_calls()
        self._primary = {}
        self._devices = {}
        self._streams = {}
        self._local = threading.local()

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

    def _raw(self, name):
        """`name` without argument types, for the hot calls: given ctypes
        objects made ahead, ctypes converts nothing (half the time of a
        typed call)."""
        key = "raw " + name
        fn = self._fns.get(key)
        if fn is None:
            self._fn(name)      # says so where the driver lacks it
            fn = self._lib[name]
            fn.restype = ctypes.c_int
            self._fns[key] = fn
        return fn

    def _stream_arg(self, handle):
        """The CUstream argument of a raw call, made once per handle."""
        arg = self._streams.get(handle)
        if arg is None:
            if len(self._streams) >= 64:
                self._streams.clear()
            arg = self._streams[handle] = ctypes.c_void_p(handle or None)
        return arg

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

    # Initialisation (DriverLibrary.init), devices and contexts.

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
        # Asked on every launch (the launch cache's check): the raw call into
        # an out-parameter of this thread's (ctypes lets other threads run
        # during the call), the check spelled out.
        try:
            out, ref, call = self._local.ctx
        except AttributeError:
            out = ctypes.c_void_p()
            out, ref, call = self._local.ctx = out, ctypes.byref(out), self._raw("cuCtxGetCurrent")
        rc = call(ref)
        if rc != CUDA_SUCCESS:
            self.check("cuCtxGetCurrent", rc)
        return out.value or 0

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

    def bind_launch(self, func, grid, block, shared_bytes):
        """launch_kernel of `func` with this grid, block and dynamic shared
        memory, its arguments converted once: a function of (stream, params)
        for the launch cache."""
        call = functools.partial(self._raw("cuLaunchKernel"), ctypes.c_void_p(func),
                                 *[ctypes.c_uint(v) for v in (*grid, *block, shared_bytes)])
        streams = self._streams

        def launch(stream, params):
            arg = streams.get(stream)
            rc = call(arg if arg is not None else self._stream_arg(stream), params, None)
            if rc != CUDA_SUCCESS:
                self.check("cuLaunchKernel", rc)
        return launch

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
    driver = _driver        # every launch asks: no lock once there is one
    if driver is not None:
        return driver
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


# CUtensorMapDataType of each dtype (TMA moves bytes: fp8, int8 and bool as UINT8)
_TMAP_TYPE = {
    "float16": CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
    "bfloat16": CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
    "float32": CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
    "float64": CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
    "float8_e4m3": CU_TENSOR_MAP_DATA_TYPE_UINT8,
    "float8_e5m2": CU_TENSOR_MAP_DATA_TYPE_UINT8,
    "int8": CU_TENSOR_MAP_DATA_TYPE_UINT8,
    "int16": CU_TENSOR_MAP_DATA_TYPE_UINT16,
    "int32": CU_TENSOR_MAP_DATA_TYPE_INT32,
    "int64": CU_TENSOR_MAP_DATA_TYPE_INT64,
    "uint8": CU_TENSOR_MAP_DATA_TYPE_UINT8,
    "uint16": CU_TENSOR_MAP_DATA_TYPE_UINT16,
    "uint32": CU_TENSOR_MAP_DATA_TYPE_UINT32,
    "uint64": CU_TENSOR_MAP_DATA_TYPE_UINT64,
    "bool": CU_TENSOR_MAP_DATA_TYPE_UINT8,
}


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
        tmap, _TMAP_TYPE[d.name], rank, ptr, shape[::-1], strides[:-1][::-1], box[::-1], estr[::-1],
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
    if CU_TENSOR_MAP_FLOAT_OOB_FILL[oob] and _TMAP_TYPE[d.name] not in (
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


class _MadeTensorMaps:
    """The TMA descriptors of a made tensor (a JITKernel's output) at each
    new address, for the launch cache: the descriptor of the checked launch
    with another address. A few addresses are kept (torch's allocator hands
    a loop's outputs out of a few blocks)."""

    _KEEP = 8

    def __init__(self, arg, value, name, driver):
        item = arg["elem"].itemsize
        self._encode = functools.partial(
            encode_tensor_map, dtype=arg["elem"].name, shape=tuple(value.shape),
            strides=tuple(s * item for s in value.strides), box=arg["box"],
            element_strides=arg["element_strides"], swizzle=arg["swizzle"],
            l2_promotion=arg["l2_promotion"], oob_fill=arg["oob_fill"], driver=driver,
            name=name)
        self._maps = {}

    def __call__(self, ptr):
        tmap = self._maps.get(ptr)
        if tmap is None:
            if len(self._maps) >= self._KEEP:
                self._maps.clear()
            tmap = self._maps[ptr] = self._encode(ptr)
        return tmap


# --- Kernels ------------------------------------------------------------------------------

class CudaKernel(BundleKernel):
    """A loaded CUDA kernel. Call it with CUDA tensors (torch, or objects
    with __cuda_array_interface__) and Python scalars in the order of the
    kernel's parameters; it launches on torch's current stream (when torch
    is imported; else the default stream) and does not synchronize."""

    TARGET = "cuda"
    API = "CUDA"
    STREAM_TYPE = "CUstream"

    def __init__(self, path, meta, driver=None):
        super().__init__(path, meta, driver)
        where = self._where
        cluster = meta.get("cluster")
        if cluster is not None:
            cluster = [int(c) for c in cluster]
            if not 1 <= len(cluster) <= 3 or any(c < 1 for c in cluster):
                raise ValueError(f"{where}: cluster must be 1 to 3 positive sizes, got "
                                 f"{cluster!r}")
            cluster = tuple(cluster + [1] * (3 - len(cluster)))
        self.cluster = cluster
        self._bound = {}        # (driver, function, grid) -> bound launch (_cache_launch)
        self._none_made = (False,) * len(self.params)
        self._made_lock = threading.Lock()

    SPECIAL_KINDS = ("tma",)

    def _compile_special_arg(self, i, a, p_index, where):
        """Checks a TMA argument's box, element strides and swizzle."""
        p = self.params[p_index]
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

    def _pack_special_arg(self, a, v, p, driver, keep):
        """A CUtensorMap for TMA argument `a` of tensor `v`; the padded copy
        it reads, if one is needed (see _tma_source), goes to `keep`."""
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
        return tmap

    @staticmethod
    def _default_driver():
        return get_driver()

    # Launching.

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

    def _fast_key(self, args, torch, made=None):
        """The launch cache's key for these arguments, or None where they
        cannot be cached: not torch tensors and Python scalars, or a tensor
        the kernel writes that torch would not let it (left to the checked
        path, which refuses it). A tensor's part is what its parameters and
        checks depend on: pointer, shape, strides (contiguity follows from
        them), dtype and device; of a tensor the caller has just made
        (`made`, see launch_made) its device only."""
        if len(args) != len(self.params):
            return None
        tensor = torch.Tensor
        key = []
        for a, written, new in zip(args, self._written, made or self._none_made):
            if isinstance(a, tensor):
                if new:
                    key.append(a.get_device())
                    continue
                if written and (a.requires_grad or a.is_inference()) and torch_read_only(a):
                    return None
                key.append((a.data_ptr(), a.shape, a.stride(), a.dtype, a.get_device()))
            elif type(a) in _FAST_SCALARS:
                key.append((type(a), a))     # the type too: 1, 1.0 and True are equal
            else:
                return None
        return tuple(key)

    def launch(self, args, stream=None):
        """Checks the arguments, then launches the kernel (asynchronously)."""
        key = None
        torch = sys.modules.get("torch")
        if torch is not None and stream is None:
            key = self._fast_key(args, torch)
            if key is not None:
                try:
                    hit = self._fast.get(key)
                except TypeError:       # a tensor type whose shape does not hash
                    hit = key = None
                if hit is not None:
                    drv, ctx, device, launch, params, current_stream, _, _ = hit
                    if drv is self.driver and drv.ctx_get_current() == ctx:
                        launch(current_stream(device), params)
                        return
        self._launch_checked(args, stream, key)

    def launch_made(self, args, made):
        """launch() for a caller that has just made some of the tensors
        (`made`, a flag for each argument: JITKernel's outputs) as the
        parameters ask, from the other arguments alone: their dtype and
        shape, contiguous, new memory. The launch cache then keys on the
        other arguments and puts the new tensors' addresses into the cached
        parameters: a caller that keeps its outputs still hits."""
        torch = sys.modules.get("torch")
        key = None
        if torch is not None:
            key = self._fast_key(args, torch, made)
            if key is not None:
                try:
                    hit = self._fast.get(key)
                except TypeError:
                    hit = key = None
                if hit is not None:
                    drv, ctx, device, launch, params, current_stream, objs, addresses = hit
                    if drv is self.driver and drv.ctx_get_current() == ctx:
                        # The parameters are read when the launch is enqueued;
                        # a launch of another thread must not change them
                        # before.
                        with self._made_lock:
                            for i, j, tmaps in addresses:
                                if tmaps is None:
                                    objs[j].value = args[i].data_ptr()
                                else:
                                    objs[j] = tmap = tmaps(args[i].data_ptr())
                                    params[j] = ctypes.addressof(tmap)
                            launch(current_stream(device), params)
                        return
        self._launch_checked(args, None, key, made)

    def _addresses(self, made, values):
        """(argument, index in the packed parameters, None or the tensor
        maps) of each address of a made tensor: what launch_made writes.
        A made tensor written through TMA has its address in a descriptor:
        a _MadeTensorMaps encodes the descriptor of each new address, the
        rest of it as in this launch (the made tensor's shape and strides
        follow from the other arguments, which the key holds). None where a
        made tensor is passed some other way (or is empty: its descriptor
        is not of its own shape): such launches are not cached."""
        out = []
        for j, a in enumerate(self._args):
            i = a.get("param")
            if i is not None and a["kind"] != "scalar" and made[i]:
                if a["kind"] == "ptr":
                    out.append((i, j, None))
                elif a["kind"] == "tma" and 0 not in values[i].shape:
                    out.append((i, j, _MadeTensorMaps(a, values[i], self.params[i]["name"],
                                                      self.driver)))
                elif a["kind"] not in ("dim", "stride"):
                    return None
        return tuple(out)

    def _cache_launch(self, key, drv, ctx, device, fn, grid, params, objs, made=None,
                      values=None):
        """Remembers a checked launch for the next one with the same key:
        the launch bound to its function, grid and block where the driver
        can (Driver.bind_launch; shared by the entries of one function and
        grid), how to ask torch's current stream, and for launch_made the
        addresses it writes."""
        addresses = None
        if made is not None:
            addresses = self._addresses(made, values)
            if addresses is None:
                return
        launch = self._bound.get((drv, fn, grid))
        if launch is None:
            if self.cluster is None and hasattr(drv, "bind_launch"):
                launch = drv.bind_launch(fn, grid, self.block, self.shared_bytes)
            else:
                launch = functools.partial(self._enqueue, drv, fn, grid)
            if len(self._bound) >= self._FAST_ENTRIES:
                self._bound.clear()
            self._bound[(drv, fn, grid)] = launch
        if len(self._fast) >= self._FAST_ENTRIES:
            self._fast.pop(next(iter(self._fast)), None)
        self._fast[key] = (drv, ctx, device, launch, params, _torch_stream_getter(), objs,
                           addresses)

    def _launch_checked(self, args, stream, key, made=None):
        values, dims = self._collect(args)
        grid = self.grid_dims(dims, values)
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
                self._cache_launch(key, drv, ctx, device, fn, grid, params, objs, made, values)
            del objs
        finally:
            keep.clear()
            if restore is not None:
                drv.ctx_set_current(restore)
