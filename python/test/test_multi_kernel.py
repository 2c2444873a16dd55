"""A function with several T.Kernel blocks (TileLang's split-KV decode and
its combine kernel): the kernels run one after another, each seeing what
the one before wrote. CPU runs against numpy; for CUDA, the bundle holds
each kernel's own binary and launch, run in order by the runtime."""

import json

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir.runtime import KernelSequence, load_bundle


def partial_sums_then_total(n=256, bn=64):
    """Kernel 1: each block sums its slice into P; kernel 2: one thread adds
    the partial sums into S."""

    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), P: T.Tensor((n // bn,), "float32"),
             S: T.Tensor((1,), "float32")):
        with T.Kernel(n // bn, threads=bn) as bx:
            s = T.alloc_fragment((bn,), "float32")
            r = T.alloc_fragment((1,), "float32")
            T.copy(A[bx * bn], s)
            T.reduce_sum(s, r, dim=0)
            P[bx] = r[0]
        with T.Kernel(1, threads=32) as bx:
            t = T.alloc_local((1,), "float32")
            t[0] = 0.0
            for i in T.serial(n // bn):
                t[0] += P[i]
            S[0] = t[0]

    return main


def test_cpu_runs_the_kernels_in_order(rng):
    a = rng.standard_normal(256).astype(np.float32)
    p, s = tilemlir.compile(partial_sums_then_total(), out_idx=[1, 2], target="cpu")(a)
    np.testing.assert_allclose(p, a.reshape(4, 64).sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s, [a.sum()], rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("chip", ["sm_90a", "sm_80"])
def test_cuda_bundle_holds_each_kernel(tmp_path, monkeypatch, chip):
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))
    kernel = tilemlir.compile(partial_sums_then_total(), out_idx=[1, 2],
                              target=f"cuda -arch={chip}")
    runtime = kernel.runtime
    assert isinstance(runtime, KernelSequence)
    assert [k.grid_dims({}) for k in runtime.kernels] == [(4, 1, 1), (1, 1, 1)]
    assert [k.block for k in runtime.kernels] == [(64, 1, 1), (32, 1, 1)]
    bundle = runtime.kernels[0].path
    meta = json.loads((bundle / "bundle.json").read_text())
    binaries = [k["binary"] for k in meta["kernels"]]
    assert binaries == ["kernel_0.cubin", "kernel_1.cubin"]
    # Each is a whole ELF of its own, holding its entry.
    for name, k in zip(binaries, meta["kernels"]):
        data = (bundle / name).read_bytes()
        assert data[:4] == b"\x7fELF"
        assert k["entry"].encode() in data
    ptx = [(bundle / k["ptx"]).read_text() for k in meta["kernels"]]
    assert all(text.count(".entry") == 1 for text in ptx)
    # The bundle loads again from disk as the same sequence.
    again = load_bundle(bundle)
    assert isinstance(again, KernelSequence) and len(again.kernels) == 2


def test_one_kernel_bundle_is_unchanged(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))

    @T.prim_func
    def one(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64) as bx:
            for i in T.Parallel(64):
                B[i] = A[i] * 2.0

    kernel = tilemlir.compile(one, out_idx=[1], target="cuda -arch=sm_90a")
    meta = json.loads((kernel.runtime.path / "bundle.json").read_text())
    assert "kernels" not in meta and meta["binary"] == "kernel.cubin"
