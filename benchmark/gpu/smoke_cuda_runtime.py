"""Smoke test of tilemlir.runtime.cuda on a machine with an NVIDIA GPU
(written for an H200: sm_90a). Needs torch with CUDA; needs neither LLVM/MLIR
nor the TileMLIR compiler library.

    python benchmark/gpu/smoke_cuda_runtime.py

It writes synthetic bundles (bundle.json + a hand-written PTX kernel) to a
temporary directory, loads them with tilemlir.runtime.load_bundle and runs
them on torch tensors:

  1. vadd (out = a + alpha * b): pointers, an i64 dimension, an f32 scalar,
     a grid expression, cuLaunchKernel;
  2. the same kernel with a cluster of 2 and 100 KB of dynamic shared memory:
     cuLaunchKernelEx with the cluster attribute, cuFuncSetAttribute;
  3. cuTensorMapEncodeTiled for a 2-d fp16 tensor, 64x64 box, 128B swizzle
     (and that a second call reuses the cached descriptor);
  4. a TMA load kernel that takes a CUtensorMap by value (64-byte aligned
     .param), loads a 64x64 fp16 tile with cp.async.bulk.tensor and writes
     it out, checked against torch.

Prints "cuda runtime smoke: ok" after 1-3 and "tma kernel: ok" after 4.
"""

import json
import pathlib
import sys
import tempfile
import types

REPO = pathlib.Path(__file__).resolve().parents[2]


def import_runtime():
    """Imports tilemlir.runtime without running tilemlir/__init__.py (which
    imports the front end and the compiler bridge): the runtime must stand
    alone."""
    if "tilemlir" not in sys.modules:
        pkg = types.ModuleType("tilemlir")
        pkg.__path__ = [str(REPO / "python" / "tilemlir")]
        sys.modules["tilemlir"] = pkg
    import tilemlir.runtime
    import tilemlir.runtime.cuda
    leaked = [m for m in ("tilemlir._compiler", "tilemlir.jit", "tilemlir.language")
              if m in sys.modules]
    assert not leaked, f"the CUDA runtime imported compiler modules: {leaked}"
    return tilemlir.runtime, tilemlir.runtime.cuda


VADD_PTX = r"""
.version 8.0
.target sm_90a
.address_size 64

// out[i] = a[i] + alpha * b[i] for 0 <= i < n
.visible .entry vadd(
    .param .u64 vadd_a,
    .param .u64 vadd_b,
    .param .u64 vadd_out,
    .param .u64 vadd_n,
    .param .f32 vadd_alpha
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<14>;
    .reg .f32 %f<5>;

    ld.param.u64 %rd1, [vadd_a];
    ld.param.u64 %rd2, [vadd_b];
    ld.param.u64 %rd3, [vadd_out];
    ld.param.u64 %rd4, [vadd_n];
    ld.param.f32 %f1, [vadd_alpha];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd5, %r1, %r2;
    cvt.u64.u32 %rd6, %r3;
    add.s64 %rd7, %rd5, %rd6;
    setp.ge.s64 %p1, %rd7, %rd4;
    @%p1 bra DONE;
    shl.b64 %rd8, %rd7, 2;
    cvta.to.global.u64 %rd9, %rd1;
    cvta.to.global.u64 %rd10, %rd2;
    cvta.to.global.u64 %rd11, %rd3;
    add.s64 %rd9, %rd9, %rd8;
    add.s64 %rd10, %rd10, %rd8;
    add.s64 %rd11, %rd11, %rd8;
    ld.global.f32 %f2, [%rd9];
    ld.global.f32 %f3, [%rd10];
    fma.rn.f32 %f4, %f1, %f3, %f2;
    st.global.f32 [%rd11], %f4;
DONE:
    ret;
}
"""

# One CTA of 128 threads: thread 0 sets up an mbarrier and issues a 2-d TMA
# load of a 64x64 fp16 box at coordinates (c0 innermost, c1) into shared
# memory; everyone waits on the barrier, then copies the tile to out.
TMA_PTX = r"""
.version 8.0
.target sm_90a
.address_size 64

.visible .entry tma_load2d(
    .param .align 64 .b8 tma_load2d_desc[128],
    .param .u64 tma_load2d_out,
    .param .u32 tma_load2d_c0,
    .param .u32 tma_load2d_c1
)
.reqntid 128, 1, 1
{
    .reg .pred %p<4>;
    .reg .b16 %h<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<10>;
    .shared .align 128 .b8 smem_tile[8192];
    .shared .align 8 .b64 smem_bar;

    mov.b64 %rd1, tma_load2d_desc;
    cvta.param.u64 %rd2, %rd1;
    ld.param.u64 %rd3, [tma_load2d_out];
    cvta.to.global.u64 %rd4, %rd3;
    ld.param.u32 %r1, [tma_load2d_c0];
    ld.param.u32 %r2, [tma_load2d_c1];
    mov.u32 %r3, %tid.x;
    mov.u32 %r4, smem_tile;
    mov.u32 %r5, smem_bar;
    setp.eq.u32 %p1, %r3, 0;

    @%p1 mbarrier.init.shared::cta.b64 [%r5], 1;
    @%p1 fence.mbarrier_init.release.cluster;
    @%p1 fence.proxy.async.shared::cta;
    bar.sync 0;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [%r5], 8192;
    @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd2, {%r1, %r2}], [%r5];

WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], 0;
    @!%p2 bra WAIT;

    mov.u32 %r6, %r3;
COPY:
    setp.ge.u32 %p3, %r6, 4096;
    @%p3 bra DONE;
    shl.b32 %r7, %r6, 1;
    add.u32 %r8, %r4, %r7;
    ld.shared.b16 %h1, [%r8];
    mul.wide.u32 %rd6, %r6, 2;
    add.s64 %rd7, %rd4, %rd6;
    st.global.b16 [%rd7], %h1;
    add.u32 %r6, %r6, 128;
    bra COPY;
DONE:
    ret;
}
"""


# Each CTA's thread 0 writes (CTAs in its cluster, dynamic shared memory
# bytes, rank in the cluster) to out[ctaid.x, 0:3]: shows what the launch set.
INFO_PTX = r"""
.version 8.0
.target sm_90a
.address_size 64

.visible .entry launch_info(
    .param .u64 launch_info_out
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;

    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [launch_info_out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r2, %ctaid.x;
    mul.wide.u32 %rd3, %r2, 12;
    add.s64 %rd4, %rd2, %rd3;
    mov.u32 %r3, %cluster_nctarank;
    mov.u32 %r4, %dynamic_smem_size;
    mov.u32 %r5, %cluster_ctarank;
    st.global.u32 [%rd4], %r3;
    st.global.u32 [%rd4+4], %r4;
    st.global.u32 [%rd4+8], %r5;
DONE:
    ret;
}
"""


def write_bundle(root, name, ptx, meta):
    d = pathlib.Path(root) / name
    d.mkdir()
    (d / "kernel.ptx").write_text(ptx)
    meta = {"target": "cuda", "arch": "sm_90a", "binary": "kernel.ptx", **meta}
    (d / "bundle.json").write_text(json.dumps(meta, indent=1))
    return d


VADD_META = {
    "entry": "vadd",
    "params": [
        {"name": "a", "kind": "tensor", "dtype": "float32", "shape": ["N"]},
        {"name": "b", "kind": "tensor", "dtype": "float32", "shape": ["N"]},
        {"name": "out", "kind": "tensor", "dtype": "float32", "shape": ["N"]},
        {"name": "alpha", "kind": "scalar", "dtype": "float32"},
    ],
    "kernel_args": [
        {"kind": "ptr", "param": 0}, {"kind": "ptr", "param": 1}, {"kind": "ptr", "param": 2},
        {"kind": "dim", "param": 0, "dim": 0},
        {"kind": "scalar", "param": 3, "dtype": "float32"},
    ],
    "grid": ["(N + 255) // 256"],
    "block": [256, 1, 1],
    "shared_bytes": 0,
}


def main():
    import torch

    runtime, cuda = import_runtime()
    assert torch.cuda.is_available(), "torch sees no CUDA device"
    dev = torch.device("cuda")
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
          f"driver API {cuda.get_driver().driver_version()}")
    torch.manual_seed(0)

    with tempfile.TemporaryDirectory(prefix="tilemlir-smoke-") as tmp:
        # 1. plain launch
        k = runtime.load_bundle(write_bundle(tmp, "vadd", VADD_PTX, VADD_META))
        assert isinstance(k, cuda.CudaKernel)
        for n in (1, 1000, 1 << 20):
            a = torch.randn(n, device=dev)
            b = torch.randn(n, device=dev)
            out = torch.empty(n, device=dev)
            assert k.check_args([a, b, out, 0.5]) == {"N": n}
            k(a, b, out, 0.5)
            torch.cuda.synchronize()
            torch.testing.assert_close(out, a + 0.5 * b)
        print("vadd (cuLaunchKernel): ok")

        # on a non-default torch stream
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            a = torch.randn(4096, device=dev)
            b = torch.randn(4096, device=dev)
            out = torch.zeros(4096, device=dev)
            k(a, b, out, -2.0)
        s.synchronize()
        torch.testing.assert_close(out, a - 2.0 * b)
        print("vadd on a side stream: ok")

        # 2. cluster launch + > 48 KB dynamic shared memory
        meta = dict(VADD_META, grid=["((N + 255) // 256 + 1) // 2 * 2"], cluster=[2, 1, 1],
                    shared_bytes=100 * 1024)
        k2 = runtime.load_bundle(write_bundle(tmp, "vadd_cluster", VADD_PTX, meta))
        n = 3 * 256 + 17    # 4 CTAs: 2 clusters of 2
        a = torch.randn(n, device=dev)
        b = torch.randn(n, device=dev)
        out = torch.empty(n, device=dev)
        k2(a, b, out, 3.0)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, a + 3.0 * b)
        print("vadd with cluster (2,1,1) and 100 KB dynamic shared memory "
              "(cuLaunchKernelEx, cuFuncSetAttribute): ok")

        # what the launch configured, seen from the kernel
        info_meta = {
            "entry": "launch_info",
            "params": [{"name": "out", "kind": "tensor", "dtype": "int32", "shape": ["G", 3]}],
            "kernel_args": [{"kind": "ptr", "param": 0}],
            "grid": ["G"], "block": [32, 1, 1],
        }
        for cluster, shared in ((None, 4096), ([2, 1, 1], 100 * 1024), ([4, 1, 1], 200 * 1024)):
            meta = dict(info_meta, shared_bytes=shared)
            if cluster:
                meta["cluster"] = cluster
            ki = runtime.load_bundle(write_bundle(tmp, f"info_{shared}", INFO_PTX, meta))
            out = torch.full((8, 3), -1, device=dev, dtype=torch.int32)
            ki(out)
            torch.cuda.synchronize()
            c = cluster[0] if cluster else 1
            want = torch.tensor([[c, shared, i % c] for i in range(8)], dtype=torch.int32)
            assert torch.equal(out.cpu(), want), (cluster, shared, out.cpu().tolist())
        print("launch_info: cluster sizes 1/2/4 and dynamic shared memory 4 KB/100 KB/200 KB "
              "seen by the kernel: ok")

        # objects with __cuda_array_interface__ (no torch tensor in sight)
        class Wrapped:
            def __init__(self, t):
                self.__cuda_array_interface__ = t.__cuda_array_interface__
        a = torch.randn(5000, device=dev)
        b = torch.randn(5000, device=dev)
        out = torch.zeros(5000, device=dev)
        k(Wrapped(a), Wrapped(b), Wrapped(out), 0.25)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, a + 0.25 * b)
        print("vadd on __cuda_array_interface__ objects: ok")

        # from another thread (no context current there at first)
        import threading
        errors = []

        def worker():
            try:
                k(a, b, out, 4.0)
                torch.cuda.synchronize()
            except Exception as e:   # noqa: BLE001
                errors.append(e)
        th = threading.Thread(target=worker)
        th.start()
        th.join()
        assert not errors, errors
        torch.testing.assert_close(out, a + 4.0 * b)
        print("vadd from another thread: ok")

        # errors name the driver call
        bad = runtime.load_bundle(write_bundle(tmp, "bad_entry", VADD_PTX,
                                               dict(VADD_META, entry="no_such_kernel")))
        try:
            bad(a, b, out, 1.0)
            raise AssertionError("a missing entry point did not fail")
        except RuntimeError as e:
            assert "cuModuleGetFunction('no_such_kernel')" in str(e), e
            assert "CUDA_ERROR_NOT_FOUND" in str(e), e
            print(f"missing entry point -> {e}")
        bad = runtime.load_bundle(write_bundle(tmp, "bad_ptx", VADD_PTX.replace("fma.rn.f32",
                                                                                 "fma.bogus.f32"),
                                               VADD_META))
        try:
            bad(a, b, out, 1.0)
            raise AssertionError("broken PTX did not fail")
        except RuntimeError as e:
            assert str(e).startswith("cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX"), e
            print(f"broken PTX -> {e}")
        k(a, b, out, 1.0)      # the context is still usable
        torch.cuda.synchronize()
        torch.testing.assert_close(out, a + b)

        # 3. a TMA descriptor: 2-d fp16, 64x64 box, 128B swizzle
        x = torch.randn(256, 512, device=dev, dtype=torch.float16)
        shape = tuple(x.shape)
        strides = tuple(s * x.element_size() for s in x.stride())
        tm = cuda.encode_tensor_map(x.data_ptr(), "float16", shape, strides, (64, 64),
                                    swizzle=128)
        assert ctypes_sizeof(tm) == 128 and addressof(tm) % 64 == 0
        assert any(tm.to_bytes()), "the descriptor is all zeros"
        again = cuda.encode_tensor_map(x.data_ptr(), "float16", shape, strides, (64, 64),
                                       swizzle=128)
        assert again is tm, "the descriptor was not reused from the cache"
        print("cuTensorMapEncodeTiled (fp16 256x512, box 64x64, swizzle 128B): ok")
        print("cuda runtime smoke: ok")

        # 4. a kernel that uses a descriptor passed by value
        tma_meta = {
            "entry": "tma_load2d",
            "params": [
                {"name": "x", "kind": "tensor", "dtype": "float16", "shape": ["M", "K"]},
                {"name": "out", "kind": "tensor", "dtype": "float16", "shape": [64, 64]},
                {"name": "c0", "kind": "scalar", "dtype": "int32"},
                {"name": "c1", "kind": "scalar", "dtype": "int32"},
            ],
            "kernel_args": [
                {"kind": "tma", "param": 0, "box": [64, 64], "swizzle": 0,
                 "elem_dtype": "float16"},
                {"kind": "ptr", "param": 1},
                {"kind": "scalar", "param": 2}, {"kind": "scalar", "param": 3},
            ],
            "grid": ["1"], "block": [128, 1, 1], "shared_bytes": 0,
        }
        kt = runtime.load_bundle(write_bundle(tmp, "tma_load2d", TMA_PTX, tma_meta))
        for row, col in ((0, 0), (64, 128), (192, 448)):
            out = torch.zeros(64, 64, device=dev, dtype=torch.float16)
            kt(x, out, col, row)
            torch.cuda.synchronize()
            torch.testing.assert_close(out, x[row:row + 64, col:col + 64], rtol=0, atol=0)
        # a box hanging over the edge: out-of-bounds elements are zero-filled
        out = torch.full((64, 64), 7.0, device=dev, dtype=torch.float16)
        kt(x, out, 480, 224)
        torch.cuda.synchronize()
        want = torch.zeros(64, 64, device=dev, dtype=torch.float16)
        want[:32, :32] = x[224:, 480:]
        torch.testing.assert_close(out, want, rtol=0, atol=0)
        print("tma kernel: ok")


def ctypes_sizeof(obj):
    import ctypes
    return ctypes.sizeof(obj)


def addressof(obj):
    import ctypes
    return ctypes.addressof(obj)


if __name__ == "__main__":
    main()
