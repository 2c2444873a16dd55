"""Compiling kernels: tilemlir.compile and the @tilemlir.jit decorator."""

import functools
import re
import pathlib
import sys
import tempfile

import numpy as np

from ..errors import TileCompileError, at_caller
from ..language import PrimFunc
from ..language.parser import translate_with_launch
from ..runtime import bind_dim_expr, dim_text, dim_value, load_bundle, logical_shape, storage_shape
from . import cache

_LOCATION = re.compile(r'loc\("(?:[^"\\]|\\.)*":\d+:\d+\)')


def _compiler():
    """The compiler bridge, imported on first use: loading bundles through
    tilemlir.runtime must not import it."""
    from .. import _compiler as bridge
    return bridge


# The stages of get_ir(stage), in pass order: where the C++ pipelines stop
# (getTilePipelineStages in lib/Pipelines/Pipelines.cpp, which also says
# which passes each stage runs; test_ir checks that the names agree).
IR_STAGES = ("tile", "verified", "lower-ops", "lower-kernel", "llvm")


@functools.lru_cache(maxsize=None)
def present_compute_capability():
    """(major, minor) of the GPU present (CUDA device 0, as the driver
    numbers them under CUDA_VISIBLE_DEVICES), or None where there is none.
    Asked once a process, through the driver (no torch), so that forked
    compile workers inherit the answer instead of starting CUDA."""
    from ..runtime.cuda import compute_capability
    return compute_capability(0)


# The NVIDIA chips the compiler targets, by the names `-arch=` takes.
_CUDA_ARCHS = {"sm_80": "sm_80", "sm_86": "sm_80", "sm_89": "sm_80", "sm_90": "sm_90a",
               "sm_90a": "sm_90a"}


def arch_for_capability(major, minor):
    """The target chip for a GPU of compute capability major.minor: sm_90a
    on 9.0 (H100, H200), sm_80 on other chips from 8.0 on (A100, and 8.6 /
    8.9, whose SASS runs sm_80 code; newer ones run sm_80's PTX, as sm_90a
    code runs only on 9.0); older GPUs are an error."""
    if (major, minor) == (9, 0):
        return "sm_90a"
    if major >= 8:
        return "sm_80"
    raise TileCompileError(
        f"error: the GPU present has compute capability {major}.{minor} (sm_{major}{minor}); "
        "TileMLIR's CUDA targets need 8.0 or newer (sm_80, sm_90a); use target='cpu', or "
        "'cuda -arch=sm_80' to compile for another machine")


def _present_chip():
    """The chip of the GPU present, or None without one."""
    cc = present_compute_capability()
    return None if cc is None else arch_for_capability(*cc)


# The AMD chips of the HIP target.
_HIP_ARCHS = ("gfx942",)


def resolve_target(target):
    """The canonical target: "cpu", "cuda:sm_80" / "cuda:sm_90a", or
    "hip:gfx942" ("hip" / "hip -arch=gfx942").
    "cuda" is the GPU present (sm_90a where none is: cross-compiling for
    an H100 / H200); "auto" is CUDA when a GPU is present, else the CPU."""
    if target is not None and not isinstance(target, str):
        raise TileCompileError(f"error: target must be a string such as 'cuda', 'cpu' or "
                               f"'auto', got {target!r}")
    t = " ".join((target or "auto").split())
    if t == "auto":
        chip = _present_chip()
        return "cpu" if chip is None else "cuda:" + chip
    if t in ("cpu", "llvm", "c"):
        return "cpu"
    if t == "cuda":
        return "cuda:" + (_present_chip() or "sm_90a")
    if t.startswith("cuda:") and t[len("cuda:"):] in _CUDA_ARCHS.values():
        return t  # already canonical (JITKernel.target)
    if t.startswith("cuda -arch="):
        arch = t[len("cuda -arch="):]
        if arch in _CUDA_ARCHS:
            return "cuda:" + _CUDA_ARCHS[arch]
        raise TileCompileError(f"error: unknown CUDA architecture {arch!r}; expected one of "
                               f"{', '.join(sorted(_CUDA_ARCHS))}")
    if t == "hip":
        return "hip:gfx942"
    if t.startswith("hip:") and t[len("hip:"):] in _HIP_ARCHS:
        return t  # already canonical
    if t.startswith("hip -arch="):
        arch = t[len("hip -arch="):]
        if arch in _HIP_ARCHS:
            return "hip:" + arch
        raise TileCompileError(f"error: unknown AMD architecture {arch!r}; TileMLIR's HIP "
                               f"target is {', '.join(_HIP_ARCHS)} (MI300X / MI300A)")
    raise TileCompileError(f"error: unknown target {t!r}; expected 'cpu', 'cuda', "
                           "'cuda -arch=sm_80', 'cuda -arch=sm_90a', 'hip -arch=gfx942' or 'auto'")


def _params_meta(func, written):
    """The bundle's "params": name, kind, dtype, and for tensors the shape
    and whether the kernel writes it (`written`: the names it writes)."""
    from ..language import TensorSpec, shape_entry, stride_entries
    import inspect
    meta = []
    for name, p in inspect.signature(func.fn).parameters.items():
        ann = p.annotation
        if isinstance(ann, TensorSpec):
            shape = [shape_entry(d) for d in ann.shape]
            meta.append({"name": name, "kind": "tensor", "dtype": ann.dtype.name, "shape": shape,
                         "written": name in written})
            if ann.strides is not None:
                meta[-1]["strides"] = stride_entries(ann)
        else:
            from ..language.dtypes import as_dtype
            meta.append({"name": name, "kind": "scalar", "dtype": as_dtype(ann).name})
    return meta


def _address(a):
    """The argument of a T.ptr parameter: a torch tensor's or a numpy
    array's data address, or the integer address given."""
    if hasattr(a, "data_ptr"):
        return int(a.data_ptr())
    if hasattr(a, "ctypes") and hasattr(a, "__array_interface__"):
        return int(a.ctypes.data)
    return a


class JITKernel:
    """A compiled kernel. `kernel(*inputs)` checks the inputs, allocates the
    outputs named by out_idx, runs, and returns the outputs."""

    def __init__(self, func, out_idx, target, ir, bundle_dir):
        self.func = func
        self.target = target
        self.ir = ir
        self.bundle_dir = pathlib.Path(bundle_dir)
        self.runtime = load_bundle(bundle_dir)
        self.params = self.runtime.params
        # T.alloc_global tensors come last; the call allocates them.
        self.program_params = [p for p in self.params if not p.get("workspace")]
        self.out_idx = output_indices(out_idx, self.program_params)
        self._plan_calls()

    def _plan_calls(self):
        """What every call needs that does not depend on its arguments,
        worked out once: where the inputs go, which of their dimensions
        are dynamic, and each output's shape (a tuple where it is static).
        Torch dtypes are looked up on first use (torch may not be
        imported yet)."""
        outs = set(self.out_idx)
        n = len(self.program_params)
        self._n_inputs = n - len(self.out_idx)
        self._input_slots = tuple(i for i in range(n) if i not in outs)
        self._input_names = ", ".join(p["name"] for p in self.input_params)
        # (slot, name, [(dim, entry)]) for inputs with dynamic dimensions.
        self._dynamic_inputs = []
        for i in self._input_slots:
            p = self.params[i]
            if p["kind"] == "tensor":
                entries = [(k, d) for k, d in enumerate(p["shape"]) if not isinstance(d, int)]
                if entries:
                    self._dynamic_inputs.append((i, p["name"], entries))
        # [slot, param, static storage shape or None, torch dtype (filled on
        # first use)]
        self._outputs = [[i, self.params[i], _static_shape(self.params[i]), None]
                         for i in self.out_idx]
        self._workspaces = [[None, p, storage_shape(p["dtype"], p["shape"]), None]
                            for p in self.params[n:]]
        self._template = [None] * n
        # The runtime's launch for arguments whose outputs and workspaces the
        # call has just made (CUDA's launch cache then keys on the inputs).
        launch_made = getattr(self.runtime, "launch_made", None)
        made = tuple(i in outs or i >= n for i in range(len(self.params)))
        self._launch_made = (None if launch_made is None or not any(made)
                             else functools.partial(launch_made, made=made))
        # T.ptr parameters: a tensor given for one passes its address.
        self._address_slots = tuple(i for i in self._input_slots
                                    if self.params[i]["kind"] == "scalar" and
                                    self.params[i]["dtype"] == "ptr")

    @property
    def input_params(self):
        return [p for i, p in enumerate(self.program_params) if i not in self.out_idx]

    def __call__(self, *inputs):
        if len(inputs) != self._n_inputs:
            raise TypeError(f"kernel takes {self._n_inputs} inputs ({self._input_names}), got "
                            f"{len(inputs)}")
        args = self._template.copy()
        for i, a in zip(self._input_slots, inputs):
            args[i] = a
        for i in self._address_slots:
            args[i] = _address(args[i])
        if not self._outputs and not self._workspaces:
            self.runtime(*args)
            return None
        # The tensor type of the outputs (and their device): the first
        # torch tensor among the inputs decides.
        torch = sys.modules.get("torch")
        like = None
        if torch is not None:
            for a in inputs:
                if isinstance(a, torch.Tensor):
                    like = a
                    break
        outputs = []
        if self._outputs:
            dims = self._dims(args) if self._dynamic_inputs else None
            for out in self._outputs:
                shape = out[2]
                if shape is None:
                    shape = storage_shape(out[1]["dtype"], self._output_shape(out[1], dims))
                args[out[0]] = t = self._allocate(out, shape, like, torch)
                outputs.append(t)
        for w in self._workspaces:
            args.append(self._allocate(w, w[2], like, torch))
        if self._launch_made is not None and like is not None:
            self._launch_made(args)
        else:
            self.runtime(*args)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else outputs

    def _dims(self, args):
        """Sizes of the dynamic dimensions, for the outputs; the runtime
        checks every argument (outputs included) once, when it launches."""
        dims = {}
        for i, name, entries in self._dynamic_inputs:
            shape = getattr(args[i], "shape", None)
            if shape is None:
                continue
            shape = logical_shape(self.params[i]["dtype"], shape)
            for k, want in entries:
                if k >= len(shape):
                    break
                if isinstance(want, dict):
                    bind_dim_expr(want, int(shape[k]), dims, name)
                else:
                    dims.setdefault(want, int(shape[k]))
        return dims

    @staticmethod
    def _output_shape(param, dims):
        shape = []
        for d in param["shape"]:
            size = dim_value(d, dims or {})
            if size is None:
                raise ValueError(f"the size '{dim_text(d)}' of output '{param['name']}' is not "
                                 "fixed by any input")
            shape.append(size)
        return tuple(shape)

    def _allocate(self, out, shape, like, torch):
        """An output of storage shape `shape`: on the cpu target a numpy
        array, or a CPU torch tensor where the inputs are torch tensors; on
        CUDA a torch tensor, on the device of the first torch input (else
        the current one). `out` is a plan entry of _plan_calls, which caches
        the torch dtype; `torch` the module where the program imported it."""
        if like is None and self.target == "cpu":
            return np.empty(shape, dtype=_np_dtype(out[1]))
        dtype = out[3]
        if dtype is None:
            from ..language.dtypes import as_dtype
            dtype = out[3] = as_dtype(out[1]["dtype"]).as_torch()
        if like is None:
            import torch
            return torch.empty(shape, dtype=dtype, device="cuda")
        if type(like) is torch.Tensor:
            # Fewer arguments for torch to parse than torch.empty's: same
            # device, contiguous, not requiring grad.
            return like.new_empty(shape, dtype=dtype)
        return torch.empty(shape, dtype=dtype, device=like.device)

    def get_kernel_source(self):
        """The final code: PTX for CUDA targets, AMDGCN assembly for HIP
        targets, LLVM IR for the CPU."""
        name = {"cpu": "kernel.ll", "hip": "kernel.s"}.get(self.target.split(":")[0],
                                                           "kernel.ptx")
        return (self.bundle_dir / name).read_text()

    def get_ir(self, stage="tile"):
        """The IR after a stage of the kernel's pipeline, one of IR_STAGES:
        "tile" as translated, "llvm" after the whole pipeline (for CUDA
        targets with the PTX text in the gpu.binary); the passes are those
        of the compiler's own pipeline for the target, up to the stage."""
        if stage not in IR_STAGES:
            raise ValueError(f"unknown stage {stage!r}; expected one of {', '.join(IR_STAGES)}")
        chip = "cpu" if self.target == "cpu" else self.target.split(":")[1]
        return _compiler().run_pipeline(self.ir, _compiler().pipeline(chip, stage))

    def get_profiler(self, tensor_supply_type=None):
        from ..profiler import Profiler
        return Profiler(self, tensor_supply_type)


def output_indices(out_idx, params):
    """The sorted parameter indices that `out_idx` (None, an int, or a list
    or tuple of ints; negative ones count from the end) names; a
    TileCompileError for any other form, an index out of range, a scalar
    parameter or a parameter named twice."""
    n = len(params)
    if out_idx is None:
        return []
    items = [out_idx] if isinstance(out_idx, int) else out_idx
    if isinstance(out_idx, bool) or not isinstance(items, (list, tuple)) or \
            any(isinstance(i, bool) or not isinstance(i, int) for i in items):
        raise TileCompileError(f"error: out_idx must be an int or a list of ints, got "
                               f"{out_idx!r}")
    names = ", ".join(f"{i}: {p['name']}" for i, p in enumerate(params))
    seen = {}
    for i in items:
        if not -n <= i < n:
            raise TileCompileError(f"error: out_idx {i} is out of range for a kernel with {n} "
                                   f"parameters ({names})")
        p = params[i % n]
        if p["kind"] != "tensor":
            raise TileCompileError(f"error: out_idx {i} names scalar parameter '{p['name']}'; "
                                   "outputs are tensors")
        if i % n in seen:
            raise TileCompileError(f"error: out_idx names parameter '{p['name']}' twice "
                                   f"({seen[i % n]} and {i})")
        seen[i % n] = i
    return sorted(seen)


def _static_shape(param):
    """The storage shape of a tensor parameter as a tuple of ints, or None
    where its shape has dynamic entries."""
    shape = param["shape"]
    if all(isinstance(d, int) for d in shape):
        return storage_shape(param["dtype"], shape)
    return None


def _np_dtype(param):
    from ..language.dtypes import as_dtype
    return as_dtype(param["dtype"]).numpy


# TileLang's execution backends: all run through tilemlir's own runtime.
_BACKENDS = ("auto", "dlpack", "ctypes", "cython", "nvrtc", "tvm_ffi", "torch")


def _check_options(execution_backend, target_host, verbose, pass_configs, compile_flags):
    """The options of TileLang's compile that tilemlir takes and does not
    need still have to be of their types (a TileCompileError says which)."""
    def bad(name, value, want):
        raise TileCompileError(f"error: {name} must be {want}, got {value!r}")

    if execution_backend is not None and execution_backend not in _BACKENDS:
        bad("execution_backend", execution_backend, f"one of {', '.join(_BACKENDS)}")
    if target_host is not None and not isinstance(target_host, str):
        bad("target_host", target_host, "a string")
    if not isinstance(verbose, bool):
        bad("verbose", verbose, "True or False")
    if pass_configs is not None and not isinstance(pass_configs, dict):
        bad("pass_configs", pass_configs, "a dict")
    flags = [compile_flags] if isinstance(compile_flags, str) else compile_flags
    if flags is not None and (not isinstance(flags, (list, tuple)) or not all(
            isinstance(f, str) for f in flags)):
        bad("compile_flags", compile_flags, "a string or a list of strings")


def compile(func, out_idx=None, target="auto", execution_backend=None, target_host=None,  # noqa: A001
            verbose=False, pass_configs=None, compile_flags=None):
    """Compiles a T.prim_func; returns a JITKernel. Looks in the disk cache
    first (TILEMLIR_CACHE_DIR)."""
    if not isinstance(func, PrimFunc):
        raise TypeError(f"tilemlir.compile expects a @T.prim_func, got {type(func).__name__}")
    try:
        target = resolve_target(_context_target(target))
        _check_options(execution_backend=execution_backend, target_host=target_host,
                       verbose=verbose, pass_configs=pass_configs, compile_flags=compile_flags)
    except TileCompileError as e:
        raise at_caller(e) from None
    ir, launch, written = translate_with_launch(func)
    params = _params_meta(func, written) + (launch or {}).get("workspaces", [])
    try:
        output_indices(out_idx, [p for p in params if not p.get("workspace")])
    except TileCompileError as e:
        raise at_caller(e) from None
    return build(func, ir, launch, params, out_idx, target,
                 _pass_config_options(pass_configs, target))


def build(func, ir, launch, params, out_idx, target, options=()):
    """The JITKernel of translated tile IR (`target` resolved) and the
    options of tile-apply-pass-configs that its pass configs ask for: from
    the disk cache, or compiled and stored there. The options are part of
    the key and applied only to compile, so that a cache hit needs no
    compiler library."""
    # The package and its compiler library are one release: the key uses the
    # package's version, so bundles built elsewhere (or shipped) are found
    # where no compiler is installed.
    from .. import __version__ as version
    # Source locations do not change the binary: leaving them out of the
    # key lets a cache filled from another checkout (or machine) serve.
    key = cache.make_key(_LOCATION.sub("", ir), target, version, *([options] if options else []))
    compiler_id = _compiler_id()
    entry = cache.lookup(key, compiler_id, params)
    if entry is not None:
        try:
            stored = pathlib.Path(entry) / "kernel.mlir"
            # The IR with the pass configs applied, as compiled.
            if options and stored.exists():
                ir = stored.read_text()
            return JITKernel(func, out_idx, target, ir, entry)
        except (OSError, ValueError, KeyError, TypeError):
            # Sound on disk but refused by its runtime: rebuilt like a
            # damaged entry.
            cache.discard(key)
    ir = _apply_pass_configs(ir, options)
    if target == "cpu":
        entry = _build_bundle(func.__name__, ir, params, key, version, compiler_id)
    else:
        entry = _build_gpu_bundle(ir, launch, params, target, key, version, compiler_id)
    return JITKernel(func, out_idx, target, ir, entry)


def _context_target(target):
    """`target`, or for "auto" the tvm.target.Target of an enclosing `with`
    (only looked at when a program has imported tilemlir.tvm)."""
    import sys
    module = sys.modules.get("tilemlir.tvm.target")
    if target in (None, "auto") and module is not None and module.Target.current():
        return module.Target.current()
    return target


def _pass_config_options(pass_configs, target):
    """The options of tile-apply-pass-configs for the kernel-wide pass
    configs that mean something here (no TMA, no warp specialization: CUDA
    only); the others warn once (tilemlir.transform)."""
    from ..transform import resolve_pass_configs
    options = resolve_pass_configs(pass_configs)
    return () if target == "cpu" else options


def _apply_pass_configs(ir, options):
    """The tile IR with those options written on its ops."""
    if not options:
        return ir
    flags = " ".join(f"{o}=true" for o in options)
    return _compiler().run_pipeline(ir, f"builtin.module(tile-apply-pass-configs{{{flags}}})")


def _compiler_id():
    """Identifies the build of the compiler library at hand (size and
    modification time), or None when there is none: cache entries of another
    build are recompiled."""
    from .. import _compiler as compiler
    if not compiler.available():
        return None
    st = compiler.library_path().stat()
    return f"{st.st_size}-{st.st_mtime_ns}"


def _kernel_args(params, host_args):
    """The kernel's parameters (the memref descriptor convention: allocated
    and aligned pointers, offset, sizes, strides) from the host arguments it
    takes; {"tma": {param, box, swizzle[, store]}} entries are TMA
    descriptors of a tensor parameter (that the kernel writes, with store)."""
    out = []
    for i in host_args:
        if isinstance(i, dict):
            # A TMA descriptor of a tensor parameter, passed by value.
            t = i["tma"]
            out.append({"kind": "tma", "param": t["param"], "box": t["box"],
                        "swizzle": t["swizzle"]})
            if t.get("store"):
                out[-1]["store"] = True
            continue
        p = params[i]
        if p["kind"] == "scalar":
            out.append({"kind": "scalar", "param": i, "dtype": p["dtype"]})
            continue
        rank = len(p["shape"])
        out += [{"kind": "ptr", "param": i}, {"kind": "ptr", "param": i},
                {"kind": "const", "value": 0}]
        out += [{"kind": "dim", "param": i, "dim": d} for d in range(rank)]
        out += [{"kind": "stride", "param": i, "dim": d} for d in range(rank)]
    return out


def _launch_entry(params, k, grid):
    """What the runtime needs to launch compiled kernel `k` (the compiler's
    description) with `grid` (its T.Kernel's extents)."""
    entry = {"entry": k["kernel"], "kernel_args": _kernel_args(params, k["args"]),
             "grid": grid, "block": k["block"], "shared_bytes": k["shared_bytes"]}
    if k.get("cluster"):
        entry["cluster"] = k["cluster"]
    return entry


def _build_gpu_bundle(ir, launch, params, target, key, version, compiler_id):
    """The bundle of a CUDA ("cuda:sm_*": cubin and PTX) or HIP ("hip:gfx*":
    hsaco and AMDGCN assembly) target."""
    vendor, chip = target.split(":")
    if launch is None:
        raise TileCompileError("error: the kernel has no `with T.Kernel(...)` block")
    if any(g is None for k in launch["kernels"] for g in k["grid"]):
        raise TileCompileError(
            "error: a grid extent of T.Kernel is computed from values the launcher cannot "
            "know; on GPU targets grid extents must be expressions of the tensors' "
            "dimensions and constants")
    if vendor == "hip":
        binary, text, meta = _compiler().compile_hip_with_isa(ir, chip)
        ext, text_name = "hsaco", "kernel.s"
    elif _compiler().cuda_toolkit().ptxas is None:
        # No ptxas: the driver compiles the PTX when it loads the bundle.
        from .._cuda_toolkit import tell_no_ptxas
        tell_no_ptxas()
        binary = None
        text, meta = _compiler().compile_cuda(ir, chip, "isa")
        ext, text_name = "cubin", "kernel.ptx"
    else:
        binary, text, meta = _compiler().compile_cuda_with_ptx(ir, chip)
        ext, text_name = "cubin", "kernel.ptx"
    kernels = meta["kernels"]
    if len(kernels) != len(launch["kernels"]):
        raise TileCompileError(f"error: the function has {len(launch['kernels'])} T.Kernel "
                               f"blocks, but {len(kernels)} kernels were compiled")
    launches = [_launch_entry(params, k, grid["grid"])
                for k, grid in zip(kernels, launch["kernels"])]
    # The text role: "ptx" for CUDA (the driver may load it), "isa" for HIP.
    role = "ptx" if vendor == "cuda" else "isa"
    bundle = {"target": vendor, "arch": chip,
              "binary": text_name if binary is None else f"kernel.{ext}", role: text_name,
              **launches[0], "params": params,
              "compiler_version": version, "compiler_id": compiler_id}
    files = {text_name: text, "kernel.mlir": ir.encode()}
    if binary is not None:
        files[f"kernel.{ext}"] = binary
    if len(launches) > 1:
        # Several T.Kernel blocks, each its own module and binary, launched
        # one after another on one stream.
        blob = binary if binary is not None else text
        modules = {b["module"]: b for b in meta["binaries"]}
        text_ext = text_name.split(".")[1]
        for i, (k, entry) in enumerate(zip(kernels, launches)):
            b = modules[k["module"]]
            name = f"kernel_{i}.{text_ext if binary is None else ext}"
            files[name] = blob[b["offset"]:b["offset"] + b["size"]]
            entry["binary"] = name
            if "ptx_offset" in b:
                files[f"kernel_{i}.{text_ext}"] = \
                    text[b["ptx_offset"]:b["ptx_offset"] + b["ptx_size"]]
                entry[role] = f"kernel_{i}.{text_ext}"
        bundle["kernels"] = launches
        bundle.update(binary=launches[0]["binary"], **{role: launches[0].get(role, text_name)})
    return cache.store(key, bundle, files)


def _build_bundle(entry_name, ir, params, key, version, compiler_id):
    with tempfile.TemporaryDirectory(prefix="tilemlir-") as tmp:
        so = pathlib.Path(tmp) / "kernel.so"
        llvm_ir = _compiler().compile_cpu(ir, so)
        files = {"kernel.so": so.read_bytes(), "kernel.ll": llvm_ir.encode(),
                 "kernel.mlir": ir.encode()}
    meta = {"target": "cpu", "entry": entry_name, "library": "kernel.so",
            "params": params, "compiler_version": version,
            "compiler_id": compiler_id}
    return cache.store(key, meta, files)


def jit(func=None, *, out_idx=None, target="auto", execution_backend=None, target_host=None,
        verbose=False, pass_configs=None, debug_root_path=None, compile_flags=None):
    """@tilemlir.jit(out_idx=[-1]) on a function that returns a T.prim_func:
    calling it (or its .compile) compiles (once per distinct arguments) and
    returns the kernel. On a function that is itself the kernel (a
    top-level `with T.Kernel`, TileLang's current front end): a
    current.KernelFunction."""

    def decorate(factory):
        from .current import KernelFunction
        from ..language.entry import is_current_style
        if is_current_style(factory):
            if out_idx is not None:
                raise at_caller(TileCompileError(
                    f"error: out_idx is for functions that return a T.prim_func; "
                    f"{factory.__name__} is itself the kernel: it returns its outputs, made "
                    "with T.empty(shape, dtype)"))
            return KernelFunction(factory, target, dict(
                execution_backend=execution_backend, target_host=target_host, verbose=verbose,
                pass_configs=pass_configs, compile_flags=compile_flags))
        kernels = {}

        @functools.wraps(factory)
        def wrapper(*args, **kwargs):
            # The enclosing `with Target(...)` picks the target of "auto".
            key = (args, tuple(sorted(kwargs.items())), str(_context_target(target)))
            try:
                hash(key)
            except TypeError:
                key = repr(key)
            if key not in kernels:
                prim = factory(*args, **kwargs)
                if not isinstance(prim, PrimFunc):
                    raise TypeError(f"@tilemlir.jit: {factory.__name__}(...) must return a "
                                    f"@T.prim_func, got {type(prim).__name__}")
                kernels[key] = compile(prim, out_idx=out_idx, target=target,
                                       execution_backend=execution_backend,
                                       target_host=target_host, verbose=verbose,
                                       pass_configs=pass_configs, compile_flags=compile_flags)
            return kernels[key]

        wrapper.factory = factory
        wrapper.compile = wrapper
        wrapper.out_idx = out_idx
        wrapper.target = target
        return wrapper

    if func is not None:
        return decorate(func)
    return decorate


# `tilemlir.jit` is this decorator (it shadows the subpackage's name there):
# let tilemlir.jit.IR_STAGES name the stages of get_ir too.
jit.IR_STAGES = IR_STAGES
