"""ptxas failures and the register check before it (sm_90a wgmma).

When ptxas fails on a kernel anyway (a limit no check before it knows), the
error raised to Python names the kernel, points at the user's line and
carries ptxas's own message. ptxas is made to fail for real: a toolkit whose
ptxas runs the real one on the PTX with `.maxntid 1024`, which leaves a
thread 64 registers, too few for an m64n128 wgmma ("Insufficient
registers"). A wgmma whose registers the block cannot have fails before
ptxas runs, at the gemm."""

import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
KERNELS = REPO / "benchmark" / "gpu" / "kernels.py"
CUDA = pathlib.Path("/usr/local/cuda")
LIBDEVICE = CUDA / "nvvm" / "libdevice" / "libdevice.10.bc"

pytestmark = pytest.mark.skipif(not (CUDA / "bin" / "ptxas").exists() or not LIBDEVICE.exists(),
                                reason="needs ptxas and libdevice (CUDA toolkit)")

PROGRAM = """
import sys
sys.path.insert(0, {gpu_dir!r})
import kernels, tilemlir
try:
    tilemlir.compile(kernels.gemm({size}, {size}, {size}, {tiles}, num_stages={stages}),
                     out_idx=[2], target="cuda -arch=sm_90a")
except tilemlir.TileCompileError as e:
    print(e)
    sys.exit(3)
"""


def compile_error(tmp_path, ptxas_body, size, tiles, stages):
    """The TileCompileError text of compiling benchmark/gpu/kernels.gemm in
    a fresh process whose CUDA toolkit's ptxas is the shell `ptxas_body`."""
    root = tmp_path / "cuda"
    (root / "bin").mkdir(parents=True)
    (root / "nvvm" / "libdevice").mkdir(parents=True)
    (root / "nvvm" / "libdevice" / LIBDEVICE.name).symlink_to(LIBDEVICE)
    ptxas = root / "bin" / "ptxas"
    ptxas.write_text("#!/bin/sh\n" + ptxas_body + f"exec {CUDA / 'bin' / 'ptxas'} \"$@\"\n")
    ptxas.chmod(0o755)
    program = PROGRAM.format(gpu_dir=str(KERNELS.parent), size=size, tiles=tiles, stages=stages)
    # $CUDA_HOME is the first place tilemlir looks for ptxas (_cuda_toolkit).
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_PATH", "CUDA_ROOT")}
    env.update(CUDA_HOME=str(root), TILEMLIR_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         env=env, timeout=300)
    assert run.returncode == 3, run.stdout + run.stderr
    return run.stdout


def line_of(text):
    """The first line of kernels.py that starts (after indentation) with `text`."""
    return next(i for i, line in enumerate(KERNELS.read_text().splitlines(), 1)
                if line.strip().startswith(text))


def test_a_ptxas_failure_names_the_kernel_the_line_and_ptxas_message(tmp_path):
    message = compile_error(
        tmp_path, "for a in \"$@\"; do case \"$a\" in *.ptx) "
                  "sed -i 's/\\.maxntid [0-9]*/.maxntid 1024/' \"$a\";; esac; done\n",
        512, "block_M=64, block_N=128, block_K=64, threads=128", 2)
    # The user's line (T.Kernel of the kernel that failed), shown.
    assert message.startswith(f"{KERNELS}:{line_of('with T.Kernel(grid_x')}:")
    assert "with T.Kernel(grid_x" in message
    # ptxas's message, as ptxas wrote it.
    assert "ptxas fatal   : (C7602) Insufficient registers (64)" in message
    # The kernel, by the name of the function that launches it.
    assert "kernel module @gemm_kernel_kernel (launched by @gemm_kernel) was not serialized" \
        in message


def test_a_wgmma_that_cannot_have_its_registers_fails_before_ptxas(tmp_path):
    # 192x256 tiles on 384 threads: one m64n256 wgmma per warpgroup needs
    # 154 registers a thread, the block with its producer warpgroup (512
    # threads) has 128. ptxas is never started: the toolkit's ptxas would
    # leave a mark.
    mark = tmp_path / "ptxas-ran"
    message = compile_error(tmp_path, f"touch {mark}\n", 4096,
                            "block_M=192, block_N=256, block_K=64, threads=384", 3)
    assert message.startswith(f"{KERNELS}:{line_of('T.gemm(A_shared, B_shared, C_local, tr')}:")
    assert ("runs as m64n256k16 wgmma, which needs 154 registers a thread" in message
            and "512 threads of the block (384 and the producer warpgroup" in message
            and "has 128" in message), message
    assert not mark.exists(), "ptxas ran"
