"""A function with several T.Kernel blocks (TileLang's split-KV decode and
its combine kernel): the kernels run one after another, each seeing what
the one before wrote. CPU runs against numpy; for CUDA, the bundle holds
each kernel's own binary and launch, run in order by the runtime."""

import ctypes
import json

import numpy as np
import pytest

import tilemlir
import tilemlir.language as T
from tilemlir.runtime import KernelSequence, load_bundle
from test_cuda_runtime import (FakeDriver, FakeTorchTensor, fake_torch,  # noqa: F401
                               outputs_at_new_addresses)


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


def test_cuda_sequence_with_outputs_at_new_addresses_stays_on_the_launch_cache(
        tmp_path, monkeypatch, fake_torch):
    # A JITKernel over several kernels makes its outputs anew each call:
    # every kernel of the sequence keys its launch cache on the inputs and
    # takes the outputs' new addresses, as a single kernel does.
    from tilemlir.runtime import cuda
    monkeypatch.setenv("TILEMLIR_CACHE_DIR", str(tmp_path))
    kernel = tilemlir.compile(partial_sums_then_total(), out_idx=[1, 2],
                              target="cuda -arch=sm_90a")
    drv = FakeDriver()
    old = cuda.set_driver(drv)
    try:
        fake_torch.float32 = "torch.float32"
        outputs_at_new_addresses(monkeypatch)
        checked = []
        for k in kernel.runtime.kernels:
            real = k._collect
            monkeypatch.setattr(k, "_collect", lambda args, real=real: checked.append(1) or
                                real(args))
        a = FakeTorchTensor((256,), "float32", ptr=0x7f0000000000)
        outs = [kernel(a) for _ in range(3)]
        assert len(checked) == 2            # each kernel checked once
        assert len(drv.launches) == 6
        # The kernels of the third call were given its outputs' addresses
        # (the first writes P, the second reads P and writes S).
        p, s = outs[2]
        pointers = []
        for k in kernel.runtime.kernels:
            (entry,) = k._fast.values()
            pointers.append({o.value for o in entry[6] if isinstance(o, ctypes.c_void_p)})
        assert p.data_ptr() in pointers[0] and {p.data_ptr(), s.data_ptr()} <= pointers[1]
    finally:
        cuda.set_driver(old)
