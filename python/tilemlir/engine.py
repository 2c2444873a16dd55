"""tilemlir.lower (TileLang's tilelang.lower / tilelang.engine.lower):
compiles a T.prim_func and returns what was made, without the runtime
around it."""

from dataclasses import dataclass, field


@dataclass
class CompiledArtifact:
    """What tilemlir.lower made. `kernel_source` is the final code (PTX for
    CUDA targets, LLVM IR for the CPU: there is no CUDA C++ source here);
    `device_mod` the tile IR the kernel was compiled from; `params` the
    kernel's parameters (name, kind, dtype, shape). TileLang's host_mod and
    rt_mod are TVM modules, which this compiler does not make: None."""

    kernel_source: str
    device_mod: str
    params: list
    target: str
    kernel: object = field(repr=False, default=None)
    host_mod: object = None
    rt_mod: object = None
    target_host: object = None


def lower(func_or_mod, target="auto", target_host=None, runtime_only=False,
          enable_host_codegen=False, enable_device_compile=False):
    """Compiles `func_or_mod` (a @T.prim_func) for `target`; returns a
    CompiledArtifact. runtime_only, enable_host_codegen and
    enable_device_compile choose what TVM builds in TileLang; here the
    kernel is always compiled whole (and cached)."""
    import tilemlir
    # Through tilemlir.compile, so that whoever wraps it (the corpus
    # harness) sees this compile too.
    kernel = tilemlir.compile(func_or_mod, target=target, target_host=target_host)
    return CompiledArtifact(kernel_source=kernel.get_kernel_source(), device_mod=kernel.ir,
                            params=list(kernel.params), target=kernel.target, kernel=kernel)
