"""A CUDA compile runs the pipeline once: the cubin and the PTX of a bundle
come from one run (ptxas's input is kept), and they are the same bytes as
the two runs, one per format, used to give."""

import importlib.util
import json
import pathlib
import shutil

import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import _compiler
from tilemlir.language.parser import translate_with_launch

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "benchmark" / "gpu" / "kernels.py"

pytestmark = pytest.mark.skipif(shutil.which("ptxas") is None
                                and not pathlib.Path("/usr/local/cuda/bin/ptxas").exists(),
                                reason="needs ptxas (CUDA toolkit)")


def benchmark_kernels():
    spec = importlib.util.spec_from_file_location("tilemlir_once_kernels", KERNELS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scale_func(N, factor):
    @T.prim_func
    def scale(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
            a = T.alloc_fragment((64,), "float32")
            T.copy(A[bx * 64], a)
            for i in T.Parallel(64):
                a[i] = a[i] * factor
            T.copy(a, B[bx * 64])

    return scale


def cases():
    k = benchmark_kernels()
    yield "scale", scale_func(1000, 3.0), "sm_80"
    yield "gemm_sm80", k.gemm(512, 256, 128, block_M=64, block_N=64, block_K=32, threads=128,
                              num_stages=2), "sm_80"
    yield "gemm_sm90a", k.gemm(512, 512, 256, block_M=128, block_N=128, block_K=64,
                               threads=256, num_stages=3, c_shared=True), "sm_90a"


@pytest.mark.parametrize("name,prim,chip", list(cases()), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_one_run_gives_the_bytes_of_the_two_runs(name, prim, chip):
    ir, _, _ = translate_with_launch(prim)
    cubin_alone, meta_bin = _compiler.compile_cuda(ir, chip, "bin")
    ptx_alone, meta_isa = _compiler.compile_cuda(ir, chip, "isa")
    cubin, ptx, meta = _compiler.compile_cuda_with_ptx(ir, chip)
    assert cubin[:4] == b"\x7fELF" and b".entry" in ptx, name
    assert cubin == cubin_alone, f"{name}: the cubin differs from format=bin's"
    assert ptx == ptx_alone, f"{name}: the PTX differs from format=isa's"
    assert meta["kernels"] == meta_bin["kernels"] == meta_isa["kernels"]
    (binary,) = meta["binaries"]
    assert (binary["offset"], binary["size"]) == (0, len(cubin))
    assert (binary["ptx_offset"], binary["ptx_size"]) == (0, len(ptx))


def test_a_cuda_compile_runs_the_pipeline_once(monkeypatch):
    # Every call of the C entry point parses the IR and runs the whole
    # pipeline once; the JIT makes one call for a bundle's cubin and PTX.
    lib = _compiler.lib()
    real = lib.tileGpuCompile
    formats = []

    def counting(ir, chip, features, opt_level, fmt, *rest):
        formats.append((fmt, rest[2] is not None))
        return real(ir, chip, features, opt_level, fmt, *rest)

    monkeypatch.setattr(lib, "tileGpuCompile", counting)
    kernel = tilemlir.compile(scale_func(4096, 0.5), out_idx=[1], target="cuda -arch=sm_80")
    assert formats == [(b"bin", True)]
    bundle = kernel.bundle_dir
    meta = json.loads((bundle / "bundle.json").read_text())
    ptx = (bundle / meta["ptx"]).read_bytes()
    cubin = (bundle / meta["binary"]).read_bytes()
    ir = (bundle / "kernel.mlir").read_text()
    assert (cubin, ptx) == (_compiler.compile_cuda(ir, "sm_80", "bin")[0],
                            _compiler.compile_cuda(ir, "sm_80", "isa")[0])
