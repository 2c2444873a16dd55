"""Block barriers between thread-level accesses of shared memory
(tile-insert-barriers). Thread-level code that fills a shared buffer and then
reads elements other threads wrote must see every write: on the CPU target the
serialized threads are cut at the barrier (run against numpy), on the NVIDIA
targets the PTX has the `bar.sync` (compiled without a GPU)."""

import re

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T


def reversed_rows(n, block):
    """Each thread copies one element into shared memory, then writes out the
    element of the thread at the other end of the block."""

    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            tx = T.get_thread_binding()
            S = T.alloc_shared((block,), "float32")
            S[tx] = A[bx * block + tx]
            B[bx * block + tx] = S[block - 1 - tx]

    return main


def test_neighbours_write_is_seen_on_the_cpu():
    n, block = 256, 64
    a = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    b = np.zeros(n, np.float32)
    tilemlir.compile(reversed_rows(n, block), target="cpu")(a, b)
    np.testing.assert_array_equal(b, a.reshape(-1, block)[:, ::-1].reshape(-1))


def thread_gemv(n, k, block_n, block_k):
    """A GEMV written at the thread level: in each step over K every thread
    stages a piece of x and of its row of W in shared memory, then each
    thread reads pieces that other threads staged."""

    @T.prim_func
    def main(W: T.Tensor((n, k), "float32"), x: T.Tensor((k,), "float32"),
             y: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, block_n), threads=block_n) as bn:
            tn = T.get_thread_binding(0)
            xs = T.alloc_shared((block_k,), "float32")
            ws = T.alloc_shared((block_n, block_k), "float32")
            acc = T.alloc_local((1,), "float32")
            T.clear(acc)
            for bk in T.serial(T.ceildiv(k, block_k)):
                for j in T.serial(block_k):
                    xs[j] = x[bk * block_k + j]
                    ws[tn, j] = W[bn * block_n + tn, bk * block_k + j]
                for j in T.serial(block_k):
                    # Row (tn + 1) of the tile: staged by the next thread.
                    acc[0] += xs[j] * ws[(tn + 1) % block_n, j]
            y[bn * block_n + tn] = acc[0]

    return main


def test_thread_level_gemv_on_the_cpu_at_an_odd_shape():
    n, k, block_n, block_k = 200, 300, 64, 32
    rng = np.random.default_rng(1)
    w = rng.standard_normal((n, k)).astype(np.float32)
    x = rng.standard_normal(k).astype(np.float32)
    y = np.zeros(n, np.float32)
    tilemlir.compile(thread_gemv(n, k, block_n, block_k), target="cpu")(w, x, y)
    # Row r of y reads row r + 1 of its block (wrapping inside the block);
    # rows past the end of W read zeros.
    wp = np.zeros((256, k), np.float32)
    wp[:n] = w
    shifted = np.roll(wp.reshape(-1, block_n, k), -1, axis=1).reshape(-1, k)[:n]
    np.testing.assert_allclose(y, shifted @ x, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_thread_level_gemv_has_barriers_in_its_ptx(arch):
    ptx = tilemlir.compile(thread_gemv(256, 256, 64, 32),
                           target=f"cuda -arch={arch}").get_kernel_source()
    # One before the reads of each step, one before the next step's writes.
    assert len(re.findall(r"\bbar\.sync\s+0;", ptx)) >= 2, ptx


def test_own_elements_need_no_barrier():
    n, block = 256, 64

    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            tx = T.get_thread_binding()
            S = T.alloc_shared((block,), "float32")
            S[tx] = A[bx * block + tx] * 2.0
            B[bx * block + tx] = S[tx] + 1.0

    ptx = tilemlir.compile(main, target="cuda -arch=sm_90a").get_kernel_source()
    assert not re.search(r"\bbar\.sync\b|\bbarrier\.sync\b", ptx), ptx
    a = np.arange(n, dtype=np.float32)
    b = np.zeros(n, np.float32)
    tilemlir.compile(main, target="cpu")(a, b)
    np.testing.assert_array_equal(b, a * 2 + 1)
