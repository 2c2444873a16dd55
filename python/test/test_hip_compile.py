"""target="hip" (gfx942) from Python without an AMD GPU: the compiler makes
HIP bundles (a hsaco and its AMDGCN assembly from one run of tile-to-rocdl),
the bundle loads as a HipKernel, and a launch through the fake
libamdhip64 of test_hip_runtime hands the runtime the hsaco, the kernel's
name and the launch shape the compiler described. What runs on the GPU is
checked on NVIDIA and the CPU, which share every target-neutral step."""

import json
import pathlib
import struct
import sys

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError
from tilemlir.runtime import hip
from test_cuda_runtime import FakeCudaArray
from test_hip_runtime import driver, fake_hip_library, log  # noqa: F401  (fixtures)

# ELF's e_machine for AMD GPUs.
EM_AMDGPU = 224


def gemm(M, N, K, block_M=64, block_N=64, block_K=32, dtype="float16"):
    @T.prim_func
    def hip_gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
                 C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), dtype)
            B_s = T.alloc_shared((block_K, block_N), dtype)
            C_f = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_f)
            T.copy(C_f, C[by * block_M, bx * block_N])
    return hip_gemm


def bundle_of(kernel):
    path = pathlib.Path(kernel.bundle_dir)
    return path, json.loads((path / "bundle.json").read_text())


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("target", ["hip", "hip -arch=gfx942", "hip:gfx942"])
def test_gemm_compiles_to_a_hip_bundle(cache, target):
    k = tilemlir.compile(gemm(200, 136, 96), out_idx=[-1], target=target)
    assert k.target == "hip:gfx942"
    path, meta = bundle_of(k)
    assert (meta["target"], meta["arch"], meta["binary"], meta["isa"]) == \
        ("hip", "gfx942", "kernel.hsaco", "kernel.s")
    assert "ptx" not in meta and "cluster" not in meta
    # 128 threads (two wavefronts); the grid of the T.Kernel, from the shapes.
    assert meta["block"] == [128, 1, 1]
    assert meta["grid"] == ["3", "4"]
    hsaco = (path / "kernel.hsaco").read_bytes()
    assert hsaco[:4] == b"\x7fELF"
    assert struct.unpack_from("<H", hsaco, 18)[0] == EM_AMDGPU
    source = k.get_kernel_source()
    assert '.amdgcn_target "amdgcn-amd-amdhsa--gfx942' in source
    # 64x64 tiles on two wavefronts: 32x64 each, two 32x32 atoms.
    assert "v_mfma_f32_32x32x8_f16" in source
    assert ".private_segment_fixed_size: 0" in source
    assert ".wavefront_size: 64" in source
    # The bundle loads as a HIP kernel (loading needs no GPU).
    from tilemlir.runtime import load_bundle
    assert isinstance(load_bundle(path), hip.HipKernel)


def test_get_ir_reaches_rocdl(cache):
    k = tilemlir.compile(gemm(128, 128, 64, dtype="bfloat16"), out_idx=[-1], target="hip")
    assert "amdgpu.mfma" in k.get_ir("lower-ops")
    assert "#rocdl.target" in k.get_ir("llvm")
    assert "v_mfma_f32_32x32x8_bf16" in k.get_kernel_source()


def test_launch_through_the_hip_runtime(cache, driver, log):
    k = tilemlir.compile(gemm(200, 136, 96), out_idx=[-1], target="hip")
    path, meta = bundle_of(k)
    a = FakeCudaArray((200, 96), "<f2", ptr=0x7f0000001000)
    b = FakeCudaArray((96, 136), "<f2", ptr=0x7f0000100000)
    c = FakeCudaArray((200, 136), "<f4", ptr=0x7f0000200000)
    from tilemlir.runtime import load_bundle
    load_bundle(path)(a, b, c)
    lines = log()
    assert lines[0] == "init 0"
    # The fake logs the image's bytes 1-4: the hsaco's ELF magic.
    assert lines[1].startswith("load ELF")
    assert lines[2].split()[2] == meta["entry"]
    launch = lines[3].split()
    # grid (ceil(136 / 64), ceil(200 / 64)), 128 threads, the LDS bytes.
    assert launch[2:10] == ["grid", "3", "4", "1", "block", "128", "1", "1"]
    assert launch[10:12] == ["shared", str(meta["shared_bytes"])]


def test_a_cluster_is_refused_with_the_user_line(cache):
    @T.prim_func
    def clustered(A: T.Tensor((64,), "float32")):
        with T.Kernel(2, cluster_dims=(2, 1, 1), threads=64) as bx:
            A[bx] = 1.0

    with pytest.raises(TileCompileError, match="clusters, which gfx942 does not have") as e:
        tilemlir.compile(clustered, target="hip")
    assert "test_hip_compile.py" in str(e.value)


def test_gemm_types_mfma_cannot_take_are_located(cache):
    @T.prim_func
    def half_acc(A: T.Tensor((64, 32), "float16"), B: T.Tensor((32, 64), "float16"),
                 C: T.Tensor((64, 64), "float16")):
        with T.Kernel(1, threads=64) as bx:
            A_s = T.alloc_shared((64, 32), "float16")
            B_s = T.alloc_shared((32, 64), "float16")
            C_f = T.alloc_fragment((64, 64), "float16")
            T.copy(A, A_s)
            T.copy(B, B_s)
            T.gemm(A_s, B_s, C_f)  # <half-acc>
            T.copy(C_f, C)

    with pytest.raises(TileCompileError, match="cannot run as mfma on gfx942") as e:
        tilemlir.compile(half_acc, target="hip")
    line = next(i for i, text in enumerate(pathlib.Path(__file__).read_text().splitlines(), 1)
                if text.rstrip().endswith("# <half-acc>"))
    assert f"test_hip_compile.py:{line}:" in str(e.value)


def test_the_seed_example_compiles_for_hip(cache):
    sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "examples" / "gemm"))
    try:
        from example_gemm import matmul
    finally:
        sys.path.pop(0)
    k = tilemlir.compile(matmul.factory(1024, 1024, 1024, 128, 128, 32), target="hip")
    source = k.get_kernel_source()
    assert source.count("v_mfma_f32_32x32x8_f16") >= 16
    assert ".private_segment_fixed_size: 0" in source
    np.testing.assert_equal(bundle_of(k)[1]["block"], [128, 1, 1])


def _example(folder, module):
    sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "examples" / folder))
    try:
        return __import__(module)
    finally:
        sys.path.pop(0)


@pytest.mark.parametrize("name", ["mha_fwd", "mha_fwd_causal", "persistent", "schedule"])
def test_the_examples_compile_for_hip(cache, name):
    """Each Python example's kernels become hsaco with MFMA and no scratch;
    flash attention's row max and row sum stay in registers (the
    accumulator's row layout), so its LDS is Q, K, V, O and P's copy."""
    if name.startswith("mha_fwd"):
        prim = _example("flash_attention", "example_mha_fwd").flashattn.factory(
            1, 2, 200, 64, name.endswith("causal"))
    elif name == "persistent":
        prim = _example("gemm", "example_gemm_persistent").matmul_persistent(
            1024, 1024, 512, 128, 128, 64, 256, 3, 304)
    else:
        prim = _example("gemm", "example_gemm_schedule").matmul(512, 512, 512, 128, 128, 32)
    k = tilemlir.compile(prim, target="hip")
    source = k.get_kernel_source()
    assert "v_mfma_f32_32x32x8_f16" in source
    assert ".private_segment_fixed_size: 0" in source
    assert bundle_of(k)[1]["shared_bytes"] <= 65536
