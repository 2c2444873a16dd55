"""kernel.get_ir(stage), get_kernel_source() and source locations in the IR."""

import importlib
import inspect
import re

import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import _compiler
from tilemlir.errors import TileCompileError

jit_mod = importlib.import_module("tilemlir.jit")
THIS_FILE = inspect.getsourcefile(lambda: None)


def marked_line(marker):
    with open(THIS_FILE) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith(f"# <{marker}>"):
                return n
    raise AssertionError(marker)


def gemm_relu_func():
    M, N, K, bm, bn, bk = 40, 24, 16, 16, 16, 8

    @T.prim_func
    def gemm_relu(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),  # <params>
                  C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm)) as (bx, by):  # <kernel>
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)  # <gemm>
            for i, j in T.Parallel(bm, bn):
                C_l[i, j] = T.max(C_l[i, j], 0.0)  # <relu>
            T.copy(C_l, C[by * bm, bx * bn])

    return gemm_relu


@pytest.fixture(scope="module")
def kernel():
    return tilemlir.compile(gemm_relu_func(), out_idx=[-1], target="cpu")


def tile_ops(text):
    return set(re.findall(r"\btile\.[a-z_]+\b", text)) - {"tile.scope"}


def test_stage_names():
    assert list(tilemlir.jit.IR_STAGES) == list(jit_mod.IR_STAGES)
    assert list(jit_mod.IR_STAGES) == ["tile", "verified", "lower-ops", "lower-kernel", "llvm"]
    # The stages the C++ pipelines end.
    assert _compiler.pipeline_stages() == jit_mod.IR_STAGES


def test_unknown_stage(kernel):
    with pytest.raises(ValueError, match="unknown stage 'ptx'"):
        kernel.get_ir("ptx")


def test_tile_stage(kernel):
    text = kernel.get_ir("tile")
    for op in ("tile.kernel", "tile.alloc_shared", "tile.alloc_fragment", "tile.clear",
               "tile.pipelined", "tile.copy", "tile.gemm", "tile.parallel"):
        assert op in text, op
    assert "func.func @gemm_relu" in text
    assert "#tile.scope<shared>" in text and "#tile.scope<fragment>" in text
    assert "num_stages = 2" in text
    assert kernel.get_ir() == text  # "tile" is the default


def test_verified_stage(kernel):
    text = kernel.get_ir("verified")
    assert {"tile.kernel", "tile.gemm", "tile.copy", "tile.pipelined"} <= tile_ops(text)
    assert "llvm.func" not in text


def test_lower_ops_stage(kernel):
    """Tile ops inside a block become loops, loads and vector ops; the kernel
    (the grid) is still there."""
    text = kernel.get_ir("lower-ops")
    assert tile_ops(text) == {"tile.kernel"}
    assert "scf.for" in text
    assert "vector." in text or "memref.load" in text


def gemm_128_func():
    M = N = K = 128
    bm, bn, bk = 64, 64, 32

    @T.prim_func
    def gemm(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(N // bn, M // bm, threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(K // bk, num_stages=2):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    return gemm


_TARGETS = {"cpu": "cpu", "sm_80": "cuda -arch=sm_80", "sm_90a": "cuda -arch=sm_90a"}


@pytest.fixture(scope="module", params=sorted(_TARGETS))
def gemm_128(request):
    """(chip, kernel) of gemm_128_func for each target."""
    return request.param, tilemlir.compile(gemm_128_func(), out_idx=[-1],
                                           target=_TARGETS[request.param])


def pass_names(pipeline):
    """The top-level passes of a textual pipeline, without their options."""
    assert pipeline.startswith("builtin.module(") and pipeline.endswith(")"), pipeline
    inner = pipeline[len("builtin.module("):-1]
    names, depth, start = [], 0, 0
    for i, ch in enumerate(inner + "," if inner else ""):
        depth += (ch in "{(") - (ch in "})")
        if ch == "," and depth == 0:
            names.append(re.match(r"[\w.-]+", inner[start:i]).group())
            start = i + 1
    return names


@pytest.mark.parametrize("chip", sorted(_TARGETS))
def test_stage_pipelines(chip):
    """Each stage's passes are the compiler's pipeline cut at the stage: every
    stage extends the one before, and the target's passes are there."""
    stages = [pass_names(_compiler.pipeline(chip, s)) for s in jit_mod.IR_STAGES]
    assert stages[0] == []
    for before, after in zip(stages, stages[1:]):
        assert after[:len(before)] == before and len(after) > len(before)
    tile, verified, lower_ops, lower_kernel, llvm = stages
    assert verified == ["tile-verify-target", "canonicalize"]
    assert lower_ops[-1] == "tile-lower-ops"
    for name in ("tile-insert-barriers", "tile-guard-memory-access", "tile-apply-tensor-layouts"):
        assert name in lower_ops, name
    gpu_middle_end = ["tile-select-mma", "tile-warp-specialize", "tile-infer-layouts",
                      "tile-plan-shared",
                      "tile-place-buffers", "tile-software-pipeline", "tile-plan-scratch"]
    if chip == "cpu":
        assert not set(gpu_middle_end) & set(llvm)
    else:
        assert [n for n in lower_ops if n in gpu_middle_end] == gpu_middle_end
        assert "tile-gpu-module-to-binary" in llvm
    assert lower_kernel[len(lower_ops):] == ["tile-lower-kernel", "tile-emulate-fp4",
                                             "tile-lower-fp8-casts", "canonicalize", "cse"]
    text = _compiler.pipeline(chip, "lower-ops")
    assert f"tile-lower-ops{{target={chip}}}" in text
    assert f"tile-verify-target{{target={chip}}}" in text


def test_llvm_stage_is_the_registered_pipeline(gemm_128):
    """The whole pipeline, printed and parsed back, lowers as tile-to-cpu /
    tile-to-nvvm{format=isa} do (the serializer's wall time aside)."""
    chip, kernel = gemm_128
    registered = "tile-to-cpu" if chip == "cpu" else f"tile-to-nvvm{{chip={chip} format=isa}}"

    def lowered(pipeline):
        text = _compiler.run_pipeline(kernel.ir, pipeline)
        return re.sub(r"LLVMIRToISATimeInMs = \d+", "", text)

    assert lowered(_compiler.pipeline(chip, "llvm")) == lowered(f"builtin.module({registered})")


def test_pipeline_errors():
    with pytest.raises(TileCompileError, match="unknown stage 'ptx'; expected one of tile, "
                                               "verified, lower-ops, lower-kernel, llvm"):
        _compiler.pipeline("cpu", "ptx")
    with pytest.raises(TileCompileError, match="unknown target 'sm_70'"):
        _compiler.pipeline("sm_70", "llvm")
    # gfx942 has a pipeline: the registered tile-to-rocdl's passes.
    assert "convert-gpu-to-rocdl" in _compiler.pipeline("gfx942", "llvm")


def test_every_stage_of_every_target(gemm_128):
    """Each stage gives IR of its own, and what it lowered is gone."""
    chip, kernel = gemm_128
    texts = {s: kernel.get_ir(s) for s in jit_mod.IR_STAGES}
    assert len(set(texts.values())) == len(texts), "a stage returned the IR of another"
    assert "tile.gemm" in texts["tile"] and "tile.gemm" in texts["verified"]
    lowered = ("tile.gemm", "tile.copy", "tile.clear", "tile.pipelined", "tile.alloc_shared",
               "tile.alloc_fragment")
    assert "tile.kernel" in texts["lower-ops"]
    assert not [op for op in lowered if op in texts["lower-ops"]]
    assert "tile.kernel" not in texts["lower-kernel"]
    if chip == "cpu":
        assert "llvm.func @gemm" in texts["llvm"] and "func.func" not in texts["llvm"]
    else:
        assert "gpu.launch" in texts["lower-kernel"]
        assert "gpu.binary" in texts["llvm"]
        assert "Generated by LLVM NVPTX Back-End" in texts["llvm"]
        assert f".target {chip}" in texts["llvm"]


def test_cuda_lower_ops_stage():
    """For CUDA targets the stage runs the GPU middle end before the op
    patterns: buffers placed, the pipelined loop multi-buffered with
    cp.async (sm_80), every tile op but the kernel lowered."""
    cuda = tilemlir.compile(gemm_128_func(), out_idx=[-1], target="cuda -arch=sm_80")
    text = cuda.get_ir("lower-ops")
    assert tile_ops(text) == {"tile.kernel", "tile.shared_bytes"}
    assert "nvgpu.device_async_copy" in text
    assert "nvgpu.mma.sync" in text


def test_lower_kernel_stage(kernel):
    text = kernel.get_ir("lower-kernel")
    assert tile_ops(text) == set()
    assert "tile." not in text.replace("tile.scope", "")
    assert "func.func @gemm_relu" in text
    assert "scf.for" in text or "omp." in text


def test_llvm_stage(kernel):
    text = kernel.get_ir("llvm")
    assert "llvm.func @gemm_relu" in text
    assert "func.func" not in text
    assert tile_ops(text) == set()
    assert not re.search(r"\b(scf|memref|arith|vector)\.", text)


def test_stages_differ(kernel):
    texts = [kernel.get_ir(s) for s in jit_mod.IR_STAGES]
    assert len(set(texts)) == len(texts), "a stage returned the IR of another"


def test_kernel_source_is_llvm_ir(kernel):
    src = kernel.get_kernel_source()
    assert "define" in src
    assert re.search(r"^define void @gemm_relu\(", src, re.M)
    # The entry point the runtime calls: void _mlir_<name>(void **args).
    assert re.search(r"^define void @_mlir_gemm_relu\(ptr", src, re.M)
    assert "tile." not in src
    assert kernel.bundle_dir.joinpath("kernel.ll").read_text() == src


def test_ir_carries_python_locations(kernel):
    text = kernel.get_ir("tile")
    quoted = '"' + THIS_FILE + '"'
    for marker in ("gemm", "relu", "kernel", "params"):
        line = marked_line(marker)
        assert f"loc({quoted}:{line}:" in text, f"no location for line {line} ({marker})"
    # The gemm op carries the location of its own statement.
    gemm_line = marked_line("gemm")
    aliases = dict(re.findall(r"^(#loc\d*) = loc\((.*)\)$", text, re.M))
    gemm_ops = [l for l in text.splitlines() if "tile.gemm" in l]
    assert len(gemm_ops) == 1
    m = re.search(r"loc\((#loc\d*)\)\s*$", gemm_ops[0])
    assert m, gemm_ops[0]
    assert aliases[m.group(1)].startswith(f"{quoted}:{gemm_line}:")
    # So does the translated text (kernel.ir), inline.
    assert "tile.gemm" in kernel.ir and f"loc({quoted}:{gemm_line}:" in kernel.ir


def test_locations_survive_lowering(kernel):
    """Lowered IR still points at the Python lines it came from."""
    relu_line = marked_line("relu")
    for stage in ("lower-ops", "lower-kernel"):
        text = kernel.get_ir(stage)
        assert f'"{THIS_FILE}":{relu_line}:' in text, stage


def test_script():
    @T.prim_func
    def tiny(A: T.Tensor((4,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(4):
                A[i] = 1.0

    text = tiny.script()
    assert "tile.parallel" in text and "func.func @tiny" in text
