"""TileLang's mbarrier API: T.alloc_barrier, T.mbarrier_arrive /
T.barrier_arrive, T.mbarrier_wait_parity / T.barrier_wait, and T.tma_copy
with the barrier its load signals (T.tma_store_arrive / T.tma_store_wait
after its stores). The barriers compile for sm_90a and sm_80 (checked in
their PTX, without a GPU); the CPU target reports them at the user's line.
T.tma_copy's stores, which need no barrier, run on the CPU against numpy."""

import inspect
import re

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir import TileCompileError

from conftest import marked_line

THIS_FILE = inspect.getsourcefile(lambda: None)
ARCHS = ["sm_90a", "sm_80"]


def assert_error_at(prim, marker, fragment, target="cuda -arch=sm_90a"):
    with pytest.raises(TileCompileError) as e:
        tilemlir.compile(prim, target=target)
    assert e.value.lineno == marked_line(THIS_FILE, marker), str(e.value)
    assert fragment in str(e.value), str(e.value)


def rows_through_shared(rows=4, width=256, threads=128):
    """Each block loads one row into shared memory with T.tma_copy, every
    thread arrives on the barrier and waits for its first phase; thread 0
    then writes the row's sum of two elements."""

    @T.prim_func
    def main(A: T.Tensor((rows, width), T.float32), B: T.Tensor((rows,), T.float32)):
        with T.Kernel(rows, threads=threads) as r:
            tid = T.get_thread_binding()
            line = T.alloc_shared((1, width), T.float32)
            loaded = T.alloc_barrier([threads, threads])
            T.tma_copy(A[r, 0:width], line[0, 0:width], barrier=loaded[1])
            T.barrier_arrive(loaded[1])
            T.mbarrier_wait_parity(mbarrier=loaded[1], parity=0)
            if tid == 0:
                B[r] = line[0, 0] + line[0, width - 1]

    return main


def pipelined_gemm(M=256, N=256, K=256, bm=128, bn=128, bk=32, stages=2):
    """A gemm whose loop signals each loaded tile on a barrier of its own and
    waits for the phase of the iteration (k % 2) before the multiply."""

    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16),
             C: T.Tensor((M, N), T.float16)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            a_tile = T.alloc_shared((bm, bk), T.float16)
            b_tile = T.alloc_shared((bk, bn), T.float16)
            acc = T.alloc_fragment((bm, bn), T.float32)
            a_ready = T.alloc_barrier(128)
            b_ready = T.alloc_barrier(arrive_count=128)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=stages):
                T.tma_copy(A[by * bm, k * bk], a_tile, barrier=a_ready)
                T.mbarrier_arrive(a_ready)
                T.tma_copy(B[k * bk, bx * bn], b_tile, barrier=b_ready)
                T.barrier_arrive(mbarrier=b_ready)
                T.barrier_wait(a_ready, k % 2)
                T.barrier_wait(b_ready, (k // 1) % 2)
                T.gemm(a_tile, b_tile, acc)
            T.copy(acc, C[by * bm, bx * bn])

    return main


def barrier_counts(ptx):
    return [int(n) // 8 for n in re.findall(r"\.shared \.align 8 \.b8 __mbarrier\w*\[(\d+)\]", ptx)]


@pytest.mark.parametrize("arch", ARCHS)
def test_alloc_barrier_initializes_arrives_and_waits(arch):
    ptx = tilemlir.compile(rows_through_shared(), target=f"cuda -arch={arch}").get_kernel_source()
    assert barrier_counts(ptx) == [2]
    # Thread 0 initializes both barriers with their counts, then the block
    # synchronizes before any thread arrives.
    init = ptx.index("mbarrier.init.shared.b64")
    assert ptx.count("mbarrier.init.shared.b64") == 2
    assert "bar.sync" in ptx[init:ptx.index("mbarrier.arrive.shared.b64")]
    assert "[__mbarrier+8]" in ptx  # the arrival is on barrier 1
    wait = "mbarrier.try_wait.parity" if arch == "sm_90a" else "mbarrier.test_wait.parity"
    assert wait in ptx
    if arch == "sm_80":
        assert "mbarrier.try_wait" not in ptx


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("stages", [0, 2, 3])
def test_pipelined_gemm_with_user_barriers_compiles(arch, stages):
    ptx = tilemlir.compile(pipelined_gemm(stages=stages),
                           target=f"cuda -arch={arch}").get_kernel_source()
    assert barrier_counts(ptx) == [1, 1]
    # The user's two arrives; on sm_90a the gemm's TMA ring (its 64-byte
    # panels) arrives on barriers of its own too.
    arrives = ptx.count("mbarrier.arrive.shared.b64")
    assert arrives == 2 if arch == "sm_80" else arrives >= 2
    assert "mma" in ptx


def test_barrier_ir_is_upstream_nvgpu():
    ir = tilemlir.compile(rows_through_shared(), target="cuda -arch=sm_90a").get_ir("tile")
    assert "nvgpu.mbarrier.create" in ir
    assert ir.count("nvgpu.mbarrier.init") == 2
    assert "nvgpu.mbarrier.arrive" in ir and "nvgpu.mbarrier.try_wait.parity" in ir


def test_tma_copy_store_runs_on_cpu(rng):
    n, tile = 300, 64

    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(T.ceildiv(n, tile), threads=64) as bx:
            s = T.alloc_shared((tile,), T.float32)
            T.copy(A[bx * tile], s)
            for i in T.Parallel(tile):
                s[i] = s[i] * 2.0 + 1.0
            T.tma_copy(s, B[bx * tile])
            T.tma_store_arrive()
            T.tma_store_wait(read=False)

    a = rng.standard_normal(n).astype(np.float32)
    b = np.zeros(n, np.float32)
    tilemlir.compile(main, target="cpu")(a, b)
    np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


# ------------------------------------------------------------- errors

def test_alloc_barrier_in_a_loop_is_rejected():
    @T.prim_func
    def main(A: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=32):
            for i in T.serial(2):
                bar = T.alloc_barrier(32)  # <in-loop>
                T.barrier_arrive(bar)

    assert_error_at(main, "in-loop", "must stand in the kernel body itself")


def test_alloc_barrier_count_must_be_a_positive_integer():
    @T.prim_func
    def main(A: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=32):
            bar = T.alloc_barrier([32, 0])  # <zero-count>
            T.barrier_arrive(bar[0])

    assert_error_at(main, "zero-count", "arrive count of T.alloc_barrier must be positive")


def test_barrier_index_out_of_range():
    @T.prim_func
    def main(A: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=32):
            bars = T.alloc_barrier([32, 32])
            T.barrier_arrive(bars[2])  # <out-of-range>

    assert_error_at(main, "out-of-range", "barrier 2 of 'bars', which holds 2")


def test_a_group_of_several_barriers_needs_an_index():
    @T.prim_func
    def main(A: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=32):
            bars = T.alloc_barrier([32, 32])
            T.barrier_wait(bars, 0)  # <group>

    assert_error_at(main, "group", "'bars' holds 2: index it")


def test_arrive_on_a_buffer_is_rejected():
    @T.prim_func
    def main(A: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=32):
            s = T.alloc_shared((4,), T.float32)
            T.mbarrier_arrive(s)  # <not-a-barrier>

    assert_error_at(main, "not-a-barrier", "takes a barrier of T.alloc_barrier, got the buffer 's'")


def test_parity_must_be_an_integer():
    @T.prim_func
    def main(A: T.Tensor((4,), T.float32)):
        with T.Kernel(1, threads=32):
            bar = T.alloc_barrier(32)
            T.barrier_arrive(bar)
            T.barrier_wait(bar, 0.5)  # <float-parity>

    assert_error_at(main, "float-parity", "parity must be an integer")


def test_tma_copy_load_needs_a_barrier():
    @T.prim_func
    def main(A: T.Tensor((64,), T.float32), B: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=64):
            s = T.alloc_shared((64,), T.float32)
            T.tma_copy(A, s)  # <no-barrier>
            T.copy(s, B)

    assert_error_at(main, "no-barrier", "load needs barrier=")


def test_tma_copy_by_groups_of_threads_is_rejected():
    @T.prim_func
    def main(A: T.Tensor((64,), T.float32), B: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=64):
            s = T.alloc_shared((64,), T.float32)
            bar = T.alloc_barrier(64)
            T.tma_copy(A, s, barrier=bar, leader_scope_threads=32)  # <leaders>
            T.copy(s, B)

    assert_error_at(main, "leaders", "leader_scope_threads=32 copies by groups of threads")


def test_cpu_target_reports_barriers_at_the_users_line():
    @T.prim_func
    def main(A: T.Tensor((64,), T.float32)):
        with T.Kernel(1, threads=64):
            bar = T.alloc_barrier(64)  # <cpu-barrier>
            T.barrier_arrive(bar)
            T.barrier_wait(bar, 0)

    assert_error_at(main, "cpu-barrier", "cpu target runs a block's threads one after another",
                    target="cpu")
