"""T.Pipelined(order=, stage=): a pinned schedule is as deep as its latest
stage, runs the same as the plain loop on the cpu target (against numpy),
and on GPUs sets how far ahead each load runs and where the steady state
issues the loads; an order that swaps dependent statements is a located
error."""

import inspect
import re

import numpy as np
import pytest
from test_errors import assert_located

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

THIS_FILE = inspect.getsourcefile(lambda: None)


def gemm(m, n, k, bm, bn, bk, order, stage, num_stages=None):
    """C = A @ B, the loads of A and B at stage[0] and stage[1] and the gemm
    at stage[2], in `order`."""
    extra = {} if num_stages is None else {"num_stages": num_stages}

    @T.prim_func
    def main(A: T.Tensor((m, k), "float16"), B: T.Tensor((k, n), "float16"),
             C: T.Tensor((m, n), "float32")):
        with T.Kernel(T.ceildiv(n, bn), T.ceildiv(m, bm), threads=128) as (bx, by):
            As = T.alloc_shared((bm, bk), "float16")
            Bs = T.alloc_shared((bk, bn), "float16")
            Cf = T.alloc_fragment((bm, bn), "float32")
            T.clear(Cf)
            for ko in T.Pipelined(T.ceildiv(k, bk), order=order, stage=stage, **extra):
                T.copy(A[by * bm, ko * bk], As)
                T.copy(B[ko * bk, bx * bn], Bs)
                T.gemm(As, Bs, Cf)
            T.copy(Cf, C[by * bm, bx * bn])

    return main


SCHEDULES = [([0, 1, 2], [0, 0, 1]), ([0, 1, 2], [0, 0, 2]), ([1, 2, 0], [0, 0, 2]),
             ([1, 2, 0], [0, 0, 1]), ([0, 1, 2], [0, 1, 2])]


@pytest.mark.parametrize("order,stage", SCHEDULES)
def test_pinned_schedule_on_cpu_matches_numpy(order, stage):
    # 200 x 136 x 100: no dimension a multiple of its tile.
    m, n, k = 200, 136, 100
    kernel = tilemlir.compile(gemm(m, n, k, 64, 64, 32, order, stage), target="cpu")
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)


def test_depth_is_the_latest_stage_plus_one():
    ir = tilemlir.compile(gemm(128, 128, 128, 64, 64, 32, [0, 1, 2], [0, 0, 2]),
                          target="cpu").get_ir("tile")
    assert "num_stages = 3" in ir
    assert "stage = array<i64: 0, 0, 2>" in ir
    # An explicit depth stays, and must hold the stages.
    ir = tilemlir.compile(gemm(128, 128, 128, 64, 64, 32, [0, 1, 2], [0, 0, 1], num_stages=4),
                          target="cpu").get_ir("tile")
    assert "num_stages = 4" in ir


def sm80_ptx(order, stage):
    kernel = tilemlir.compile(gemm(1024, 1024, 1024, 128, 128, 32, order, stage),
                              target="cuda -arch=sm_80")
    return re.sub(r"[ \t]+", " ", kernel.get_kernel_source())


def test_sm80_loads_run_as_far_ahead_as_the_stages_say():
    # Loads two iterations ahead: two commit groups before the loop, one may
    # still run when an iteration starts.
    ptx = sm80_ptx([0, 1, 2], [0, 0, 2])
    assert "cp.async.wait_group 1;" in ptx
    # One iteration ahead: every group but none may run.
    ptx = sm80_ptx([0, 1, 2], [0, 0, 1])
    assert "cp.async.wait_group 1;" not in ptx
    assert "cp.async.wait_group 0;" in ptx


def test_sm80_order_puts_the_gemm_before_the_loads():
    ptx = sm80_ptx([1, 2, 0], [0, 0, 1])
    body = ptx[ptx.index("cp.async.wait_group 0;"):]
    # In the steady state the gemm's mma.sync come before the next loads.
    assert body.index("mma.sync") < body.index("cp.async.cg.shared.global")


@pytest.mark.parametrize("order,stage", SCHEDULES)
def test_pinned_schedules_compile_for_sm90a(order, stage):
    kernel = tilemlir.compile(gemm(1024, 1024, 1024, 128, 128, 32, order, stage),
                              target="cuda -arch=sm_90a")
    assert re.search(r"wgmma\.mma_async", kernel.get_kernel_source())


def test_order_that_swaps_dependent_statements_is_located():
    @T.prim_func
    def k(A: T.Tensor((64, 64), "float32"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128):
            S = T.alloc_shared((64, 64), "float32")
            F = T.alloc_fragment((64, 64), "float32")
            for i in T.Pipelined(4, order=[0, 2, 1], stage=[0, 1, 1]):  # <swapped>
                T.copy(A, S)
                T.copy(S, F)
                T.copy(F, C)

    with pytest.raises(TileCompileError) as excinfo:
        tilemlir.compile(k, target="cuda -arch=sm_80")
    assert_located(excinfo, "swapped", "order puts op 2", "before op 1",
                   "depend on each other", source=THIS_FILE)
