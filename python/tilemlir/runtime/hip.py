"""Runs HIP bundles (AMD GPUs) through the HIP runtime API (ctypes over
libamdhip64.so).

Pure Python, like the CUDA runtime (runtime/cuda.py), with which it shares
the reading of a bundle and the checking and packing of arguments
(runtime/kernel_args.py). ROCm's torch calls its devices "cuda": a tensor
on `torch.device("cuda:0")` is a HIP device pointer, and torch's current
stream is a hipStream_t.

A HIP bundle's `bundle.json` is a CUDA bundle's (see runtime/cuda.py) with

    "target": "hip", "arch": "gfx942", "binary": "kernel.hsaco",

and without "ptx", "cluster" or TMA kernel arguments. Every call into HIP
goes through one `HipDriver` object (`get_driver`/`set_driver`, or
`HipKernel(..., driver=...)`), so tests can load another library in its
place (python/test/test_hip_runtime.py builds a fake one that records its
calls).
"""

import ctypes
import os
import sys
import threading

from .kernel_args import BundleKernel, DriverLibrary, _Tensor

__all__ = ["HipKernel", "HipDriver", "get_driver", "set_driver", "LIBAMDHIP"]

# The names the HIP runtime has been installed under (ROCm 5, 6 and 7);
# TILEMLIR_HIP_LIBRARY names another file.
LIBAMDHIP = ("libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5")

# --- Values from hip_runtime_api.h (ROCm 6) -----------------------------------------------

HIP_SUCCESS = 0
_ERROR_NAMES = {1: "hipErrorInvalidValue", 98: "hipErrorInvalidDeviceFunction",
                100: "hipErrorNoDevice", 101: "hipErrorInvalidDevice",
                200: "hipErrorInvalidImage", 209: "hipErrorNoBinaryForGpu",
                500: "hipErrorNotFound", 701: "hipErrorLaunchOutOfResources"}
LDS_LIMIT = 64 * 1024    # LDS a work-group may use on gfx942 (static plus dynamic)

_P = ctypes.POINTER
_c_uint = ctypes.c_uint
_SIGNATURES = {
    "hipInit": [_c_uint],
    "hipGetDeviceCount": [_P(ctypes.c_int)],
    "hipGetDevice": [_P(ctypes.c_int)],
    "hipSetDevice": [ctypes.c_int],
    "hipModuleLoadData": [_P(ctypes.c_void_p), ctypes.c_void_p],
    "hipModuleGetFunction": [_P(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_char_p],
    "hipModuleUnload": [ctypes.c_void_p],
    "hipModuleLaunchKernel": [ctypes.c_void_p, _c_uint, _c_uint, _c_uint, _c_uint, _c_uint,
                              _c_uint, _c_uint, ctypes.c_void_p, _P(ctypes.c_void_p),
                              _P(ctypes.c_void_p)],
    "hipGetLastError": [],
    "hipDeviceSynchronize": [],
}
_STRING_FNS = ("hipGetErrorName", "hipGetErrorString")   # const char *(hipError_t)


class HipDriver(DriverLibrary):
    """The HIP runtime calls the runtime makes, as methods that raise
    RuntimeError (with HIP's error name and string) on failure. Handles are
    Python ints (0 for NULL)."""

    INIT = "hipInit"

    def __init__(self, library=None):
        names = [library] if library else (
            [os.environ["TILEMLIR_HIP_LIBRARY"]] if os.environ.get("TILEMLIR_HIP_LIBRARY")
            else list(LIBAMDHIP))
        errors = []
        for name in names:
            try:
                self._lib = ctypes.CDLL(name)
                break
            except OSError as e:
                errors.append(f"{name}: {e}")
        else:
            raise RuntimeError(
                "no HIP runtime (libamdhip64.so) found: " + "; ".join(errors) + "; running HIP "
                "bundles needs an AMD GPU with ROCm installed (or TILEMLIR_HIP_LIBRARY naming "
                "libamdhip64.so)")
        self.library = name
        self._init_calls()

    def _fn(self, name):
        fn = self._fns.get(name)
        if fn is None:
            try:
                fn = getattr(self._lib, name)
            except AttributeError:
                raise RuntimeError(f"the HIP runtime ({self.library}) has no {name}") from None
            if name in _STRING_FNS:
                fn.argtypes, fn.restype = [ctypes.c_int], ctypes.c_char_p
            else:
                fn.argtypes, fn.restype = _SIGNATURES[name], ctypes.c_int
            self._fns[name] = fn
        return fn

    def error_text(self, rc):
        """'hipErrorX (n): description' for a hipError_t."""
        texts = []
        for fn in _STRING_FNS:
            try:
                v = self._fn(fn)(rc)
            except RuntimeError:
                v = None
            texts.append(v.decode(errors="replace") if v else None)
        name = texts[0] or _ERROR_NAMES.get(rc)
        text = texts[1] or "no description"
        return f"{name} ({rc}): {text}" if name else f"hipError_t {rc}: {text}"

    def check(self, call, rc, detail=""):
        if rc != HIP_SUCCESS:
            # HIP also keeps the error as the thread's last error: clear it,
            # so that it is not reported again by an unrelated later call.
            try:
                self._fn("hipGetLastError")()
            except RuntimeError:
                pass
            raise RuntimeError(f"{call} failed: {self.error_text(rc)}{detail}")

    def device_count(self):
        n = ctypes.c_int()
        self._call("hipGetDeviceCount", ctypes.byref(n))
        return n.value

    def get_device(self):
        d = ctypes.c_int()
        self._call("hipGetDevice", ctypes.byref(d))
        return d.value

    def set_device(self, ordinal):
        self._call("hipSetDevice", ordinal, what=f"hipSetDevice({ordinal})")

    def last_error(self):
        """hipGetLastError: the thread's last error (and clears it)."""
        return self._fn("hipGetLastError")()

    def synchronize(self):
        self._call("hipDeviceSynchronize")

    def module_load_data(self, image, detail=""):
        buf = ctypes.create_string_buffer(bytes(image))
        mod = ctypes.c_void_p()
        rc = self._fn("hipModuleLoadData")(ctypes.byref(mod), buf)
        self.check("hipModuleLoadData", rc, detail)
        return mod.value or 0

    def module_unload(self, module):
        self._call("hipModuleUnload", ctypes.c_void_p(module))

    def module_get_function(self, module, name):
        fn = ctypes.c_void_p()
        self._call("hipModuleGetFunction", ctypes.byref(fn), ctypes.c_void_p(module),
                   name.encode(), what=f"hipModuleGetFunction({name!r})")
        return fn.value or 0

    def launch_kernel(self, func, grid, block, shared_bytes, stream, params, detail=""):
        self._call("hipModuleLaunchKernel", ctypes.c_void_p(func), *grid, *block, shared_bytes,
                   ctypes.c_void_p(stream), params, None, detail=detail)


_driver = None
_driver_lock = threading.Lock()


def get_driver():
    """The process's HipDriver, made on first use; raises RuntimeError when
    libamdhip64.so is absent."""
    global _driver
    with _driver_lock:
        if _driver is None:
            _driver = HipDriver()
        return _driver


def set_driver(driver):
    """Replaces the process's HipDriver (tests); returns the old one."""
    global _driver
    with _driver_lock:
        old, _driver = _driver, driver
        return old


class HipKernel(BundleKernel):
    """A loaded HIP kernel. Call it with tensors on an AMD GPU (ROCm torch
    tensors on a "cuda" device, or objects with __cuda_array_interface__)
    and Python scalars in the order of the kernel's parameters; it launches
    on torch's current stream (when torch is imported; else the null
    stream) and does not synchronize."""

    TARGET = "hip"
    API = "HIP"
    STREAM_TYPE = "hipStream_t"

    def __init__(self, path, meta, driver=None):
        super().__init__(path, meta, driver)
        if meta.get("cluster") is not None:
            raise ValueError(f"{self._where}: thread block clusters are NVIDIA-only; a HIP "
                             "bundle cannot have \"cluster\"")
        if self.shared_bytes > LDS_LIMIT:
            raise ValueError(f"{self._where}: {self.shared_bytes} bytes of dynamic shared memory "
                             f"(LDS) is more than the {LDS_LIMIT} bytes a work-group has")

    def _unknown_kind_hint(self, kind):
        return " (TMA descriptors exist only on NVIDIA GPUs)" if kind == "tma" else ""

    @staticmethod
    def _default_driver():
        return get_driver()

    def _device(self, values, drv):
        for v in values:
            if isinstance(v, _Tensor) and v.device is not None:
                return v.device
        torch = sys.modules.get("torch")
        if torch is not None:
            return torch.cuda.current_device()
        return drv.get_device()

    def _function(self, drv, device):
        fn = self._functions.get(device)
        if fn is not None:
            return fn
        with self._lock:
            fn = self._functions.get(device)
            if fn is None:
                detail = (f" (bundle {self.path}, binary {self.meta['binary']}, arch "
                          f"{self.arch}: a hsaco runs only on the GPU it was built for)")
                module = drv.module_load_data(self.image, detail)
                try:
                    fn = drv.module_get_function(module, self.entry)
                except RuntimeError:
                    try:
                        drv.module_unload(module)
                    except RuntimeError:
                        pass
                    raise
                self._functions[device] = fn
        return fn

    def launch(self, args, stream=None):
        """Checks the arguments, then launches the kernel (asynchronously)."""
        values, dims = self._collect(args)
        grid = self.grid_dims(dims, values)
        if 0 in grid:
            return      # nothing to do (a launch with an empty grid is an error)
        drv = self.driver
        drv.init()
        device = self._device(values, drv)
        previous = drv.get_device()
        if previous != device:
            drv.set_device(device)
        try:
            fn = self._function(drv, device)
            objs = self.pack_args(values, drv, [])
            params = (ctypes.c_void_p * max(len(objs), 1))(
                *[ctypes.addressof(o) for o in objs])
            drv.launch_kernel(fn, grid, self.block, self.shared_bytes,
                              self._stream(stream, device), params,
                              detail=f" (kernel '{self.entry}', grid {grid}, block {self.block}, "
                                     f"{self.shared_bytes} bytes of dynamic LDS)")
        finally:
            if previous != device:
                drv.set_device(previous)
