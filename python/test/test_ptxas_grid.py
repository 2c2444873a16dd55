"""ptxas on the PTX of TileLang-style sm_90a GEMMs and flash attention over
the tile-configuration grid of benchmark/gpu/tile_grid.py: every kernel
assembles with no stack frame, no spill and no serialized wgmma, and in a
bounded time (a 3-stage GEMM once took ptxas 46-130 s; a GEMM through
C_shared once kept its accumulator in a 512-byte stack frame). The PTX is
made here in turn, ptxas runs in parallel."""

import concurrent.futures
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

from tilemlir import _compiler
from tilemlir.language.parser import translate_with_launch

PTXAS = pathlib.Path("/usr/local/cuda/bin/ptxas")
GPU_BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmark" / "gpu"
# Far above what any kernel of the grid takes (0.2-2 s), far below what a
# fully unrolled pipeline takes: a hang or a blow-up fails, not a slow CI.
PTXAS_TIMEOUT_S = 60

pytestmark = pytest.mark.skipif(not PTXAS.exists(), reason="needs ptxas (CUDA toolkit)")


def load_grid():
    sys.path.insert(0, str(GPU_BENCH))
    spec = importlib.util.spec_from_file_location("tilemlir_tile_grid",
                                                  GPU_BENCH / "tile_grid.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ptxas_problems(name, ptx_path):
    """What is wrong with `ptxas -v` on the kernel: [] when nothing."""
    try:
        run = subprocess.run([str(PTXAS), "-v", "-arch=sm_90a", str(ptx_path), "-o",
                              str(ptx_path.with_suffix(".cubin"))],
                             capture_output=True, text=True, timeout=PTXAS_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return [f"{name}: ptxas ran over {PTXAS_TIMEOUT_S} s"]
    log = run.stdout + run.stderr
    problems = []
    if run.returncode != 0:
        problems.append(f"{name}: ptxas failed: {log.strip()[-500:]}")
    frames = re.findall(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                        r"(\d+) bytes spill loads", log)
    if not frames and run.returncode == 0:
        problems.append(f"{name}: no function properties in ptxas -v output")
    for frame in frames:
        if any(int(n) for n in frame):
            problems.append(f"{name}: {frame[0]} bytes stack frame, {frame[1]} bytes "
                            f"spill stores, {frame[2]} bytes spill loads")
    for line in log.splitlines():
        if "warning" in line or "serialized" in line:
            problems.append(f"{name}: {line.strip()}")
    return problems


def test_grid_assembles_without_stack_spill_or_serialized_wgmma(tmp_path):
    grid = load_grid()
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for name, prim, _ in grid.grid():
            ir, _, _ = translate_with_launch(prim)
            ptx, _ = _compiler.compile_cuda(ir, "sm_90a", "isa")
            path = tmp_path / f"{name}.ptx"
            path.write_bytes(ptx)
            jobs.append(pool.submit(ptxas_problems, name, path))
        problems = [p for job in jobs for p in job.result()]
    assert len(jobs) == len(grid.GEMMS) + len(grid.ATTENTION)
    assert not problems, "\n".join(problems)
