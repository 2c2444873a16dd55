"""The bridge to the C++ compiler: ctypes over libTileMLIRCAPI.so.

Only compilation goes through here; running a compiled bundle does not need
this module (see tilemlir.runtime)."""

import ctypes
import os
import pathlib
import threading

from .errors import TileCompileError, from_diagnostics

_LIB_NAME = "libTileMLIRCAPI.so"
_lock = threading.Lock()
_lib = None


def library_path():
    """Where the compiler library is: $TILEMLIR_LIBRARY, the installed
    package's _lib/, or the repository's build/lib/."""
    env = os.environ.get("TILEMLIR_LIBRARY")
    if env:
        return pathlib.Path(env)
    here = pathlib.Path(__file__).resolve().parent
    for candidate in (here / "_lib" / _LIB_NAME,
                      here.parent.parent / "build" / "lib" / _LIB_NAME):
        if candidate.exists():
            return candidate
    return None


def available():
    path = library_path()
    return path is not None and path.exists()


def lib():
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        path = library_path()
        if path is None:
            raise TileCompileError(
                f"the TileMLIR compiler library ({_LIB_NAME}) was not found: run `make build` "
                "in the repository, or set TILEMLIR_LIBRARY to its path")
        if not path.exists():
            raise TileCompileError(
                f"the TileMLIR compiler library {path} (from TILEMLIR_LIBRARY) does not exist: "
                "set TILEMLIR_LIBRARY to the path of libTileMLIRCAPI.so, or unset it")
        try:
            l = ctypes.CDLL(str(path))
        except OSError as e:
            raise TileCompileError(f"cannot load the TileMLIR compiler library {path}: {e}") \
                from None
        l.tileVersion.restype = ctypes.c_char_p
        l.tileRunPipeline.restype = ctypes.c_void_p
        l.tileRunPipeline.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                     ctypes.POINTER(ctypes.c_void_p)]
        l.tileCpuCompile.restype = ctypes.c_void_p
        l.tileCpuCompile.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        l.tileCpuWriteSharedLibrary.restype = ctypes.c_int
        l.tileCpuWriteSharedLibrary.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                                ctypes.POINTER(ctypes.c_void_p)]
        l.tileCpuGetLLVMIR.restype = ctypes.c_char_p
        l.tileCpuGetLLVMIR.argtypes = [ctypes.c_void_p]
        l.tileCpuDestroy.argtypes = [ctypes.c_void_p]
        l.tileGpuCompile.restype = ctypes.c_int
        l.tileGpuCompile.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                     ctypes.c_int32, ctypes.c_char_p,
                                     ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.POINTER(ctypes.c_int64),
                                     ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.POINTER(ctypes.c_int64),
                                     ctypes.POINTER(ctypes.c_void_p),
                                     ctypes.POINTER(ctypes.c_void_p)]
        l.tilePipelineStages.restype = ctypes.c_char_p
        l.tilePipeline.restype = ctypes.c_void_p
        l.tilePipeline.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_void_p)]
        l.tileFreeString.argtypes = [ctypes.c_void_p]
        l.tileSetCudaToolkit.argtypes = [ctypes.c_char_p]
        _lib = l
        return l


def version():
    return lib().tileVersion().decode()


def _take(ptr):
    if not ptr:
        return ""
    text = ctypes.string_at(ptr).decode(errors="replace")
    lib().tileFreeString(ptr)
    return text


def _module_pipeline(pipeline):
    """The passes of `pipeline` to run on the top-level module.

    tileRunPipeline adds the pipeline text to a pass manager that is already
    anchored on the parsed module, so "builtin.module(p1,p2)" (the form
    mlir-opt's --pass-pipeline takes) would nest p1, p2 under a second
    builtin.module and run on nothing: unwrap it here."""
    text = pipeline.strip()
    head = "builtin.module("
    if text.startswith(head) and text.endswith(")"):
        inner = text[len(head):-1]
        # Only when the outer parentheses enclose everything.
        depth = 0
        for ch in inner:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth < 0:
                return text
        if depth == 0:
            return inner.strip()
    return text


def run_pipeline(ir, pipeline=""):
    """The IR after `pipeline` (textual pass pipeline, e.g.
    "builtin.module(canonicalize,cse)") ran on it."""
    pipeline = _module_pipeline(pipeline)
    err = ctypes.c_void_p()
    out = lib().tileRunPipeline(ir.encode(), pipeline.encode(), ctypes.byref(err))
    if not out:
        raise from_diagnostics(_take(err.value))
    return _take(out)


def pipeline_stages():
    """The stages where the compiler's pipelines can stop, in pass order
    (getTilePipelineStages of lib/Pipelines/Pipelines.cpp)."""
    return tuple(lib().tilePipelineStages().decode().split(","))


def pipeline(target, stage):
    """The textual pass pipeline ("builtin.module(...)") that lowers tile IR
    for `target` ("cpu", "sm_80", "sm_90a") up to the end of `stage` (one of
    pipeline_stages()): printed by the C++ pipeline builders that compiles
    run, so it is their list of passes. The NVIDIA pipelines end in PTX text
    (format=isa)."""
    l = lib()
    if target.startswith("sm_"):
        cuda_toolkit()  # the serializer's toolkit is one of its options
    err = ctypes.c_void_p()
    out = l.tilePipeline(target.encode(), stage.encode(), ctypes.byref(err))
    if not out:
        raise from_diagnostics(_take(err.value))
    return _take(out)


def compile_cpu(ir, library_path):
    """Compiles tile IR for the host CPU into a shared library; returns the
    optimized LLVM IR."""
    l = lib()
    err = ctypes.c_void_p()
    module = l.tileCpuCompile(ir.encode(), ctypes.byref(err))
    if not module:
        raise from_diagnostics(_take(err.value))
    try:
        if l.tileCpuWriteSharedLibrary(module, str(library_path).encode(), ctypes.byref(err)):
            raise from_diagnostics(_take(err.value))
        return l.tileCpuGetLLVMIR(module).decode()
    finally:
        l.tileCpuDestroy(module)


_toolkit = None


def cuda_toolkit():
    """The CUDA tools that compiles use (tilemlir._cuda_toolkit), looked up
    on first use and handed to the compiler library."""
    global _toolkit
    l = lib()
    with _lock:
        if _toolkit is None:
            from . import _cuda_toolkit
            _toolkit = _cuda_toolkit.find()
            root = _toolkit.root
            l.tileSetCudaToolkit(str(root).encode() if root else None)
        return _toolkit


def compile_cuda(ir, chip, fmt="bin", features="+ptx80", opt_level=3):
    """Compiles tile IR for an NVIDIA GPU: (binary bytes, metadata dict) with
    the binary a cubin ("bin") or PTX text ("isa")."""
    binary, _, meta = _cuda_compile(ir, chip, fmt, features, opt_level, with_ptx=False)
    return binary, meta


def compile_cuda_with_ptx(ir, chip, features="+ptx80", opt_level=3):
    """Compiles tile IR for an NVIDIA GPU once: (cubin bytes, PTX bytes,
    metadata dict), the PTX being the text ptxas assembled into the cubin
    (what compile_cuda gives for "isa"; the cubin is its "bin")."""
    return _cuda_compile(ir, chip, "bin", features, opt_level, with_ptx=True)


def compile_hip_with_isa(ir, chip, opt_level=3):
    """Compiles tile IR for an AMD GPU (`chip` gfx942) once: (hsaco bytes,
    AMDGCN assembly bytes, metadata dict), the assembly being the text that
    was assembled into the hsaco."""
    return _gpu_compile(ir, chip, "bin", "", opt_level, with_ptx=True)


def compile_hip(ir, chip, fmt="bin", opt_level=3):
    """Compiles tile IR for an AMD GPU: (binary bytes, metadata dict) with the
    binary a hsaco ("bin") or AMDGCN assembly ("isa")."""
    binary, _, meta = _gpu_compile(ir, chip, fmt, "", opt_level, with_ptx=False)
    return binary, meta


def _cuda_compile(ir, chip, fmt, features, opt_level, with_ptx):
    cuda_toolkit()
    return _gpu_compile(ir, chip, fmt, features, opt_level, with_ptx)


def _gpu_compile(ir, chip, fmt, features, opt_level, with_ptx):
    import json
    l = lib()
    binary, size, meta, err = (ctypes.c_void_p(), ctypes.c_int64(), ctypes.c_void_p(),
                               ctypes.c_void_p())
    ptx, ptx_size = ctypes.c_void_p(), ctypes.c_int64()
    if l.tileGpuCompile(ir.encode(), chip.encode(), features.encode(), opt_level, fmt.encode(),
                         ctypes.byref(binary), ctypes.byref(size),
                         ctypes.byref(ptx) if with_ptx else None,
                         ctypes.byref(ptx_size) if with_ptx else None,
                         ctypes.byref(meta), ctypes.byref(err)):
        raise from_diagnostics(_take(err.value))
    data = ctypes.string_at(binary.value, size.value)
    l.tileFreeString(binary.value)
    text = None
    if with_ptx:
        text = ctypes.string_at(ptx.value, ptx_size.value)
        l.tileFreeString(ptx.value)
    return data, text, json.loads(_take(meta.value))
