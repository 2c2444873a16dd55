"""Host time of one kernel call: what our Python adds around the driver's
launch, for the three ways of calling a kernel (an elementwise add of
1024x1024 fp32, TileLang's examples/elementwise/example_elementwise_add.py):

    runtime(a, b, c)   the bundle's CudaKernel, output given
    k(a, b)            the JITKernel (allocates its output)
    f(a, b, **kw)      the @tilemlir.jit kernel function, as TileLang's
                       examples call it every iteration

Without a GPU (the default) torch is a stand-in whose tensors answer in
Python, and the driver is the real cuda.Driver over a fake libcuda.so built
from python/test/fake_libcuda.c (when a C compiler is at hand; else a
Python stand-in), so the ctypes calls are real foreign calls:

    python3 benchmark/host_call_overhead.py [--profile]

On a GPU, with real torch tensors, against torch's own ops; the kernel
comes from a disk cache filled on the build machine (no compiler needed
on the GPU machine):

    # build machine
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/host_call_overhead.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/host_call_overhead.py --gpu

Prints microseconds per call (a loop of calls without synchronizing, the
best of several runs)."""

import collections
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
import types

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import tilemlir  # noqa: E402
import tilemlir.language as T  # noqa: E402
from tilemlir.runtime import cuda  # noqa: E402

SHAPE = (1024, 1024)
KW = dict(block_M=32, block_N=32, threads=128, in_dtype="float32", out_dtype="float32")


@tilemlir.jit(target="cuda")
def elementwise_add(A, B, block_M, block_N, threads, in_dtype, out_dtype):
    M, N = T.const("M, N")
    A: T.Tensor((M, N), in_dtype)
    B: T.Tensor((M, N), in_dtype)
    C = T.empty((M, N), out_dtype)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
        for i, j in T.Parallel(block_M, block_N):
            y = by * block_M + i
            x = bx * block_N + j
            if y < M and x < N:
                C[y, x] = A[y, x] + B[y, x]
    return C


def us_per_call(fn, n=5000, sync=None):
    """Microseconds of one call, the best of several loops. Without a GPU
    the CPU time of this process (steadier on a shared machine); on a GPU
    the wall clock, the queue drained between loops."""
    fn()
    if sync is None:
        return min(timeit.repeat(fn, number=n, repeat=15, timer=time.process_time)) / n * 1e6
    best = float("inf")
    for _ in range(5):
        sync()
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n * 1e6)
    sync()
    return best


# --- Without a GPU ------------------------------------------------------------------------

class StubDriver:
    """cuda.Driver's launch-path calls, doing nothing (where no C compiler
    builds the fake libcuda)."""

    def init(self):
        pass

    def device_get(self, ordinal):
        return ordinal

    def primary_context(self, ordinal):
        return 0x1000

    def ctx_get_current(self):
        return 0x1000

    def ctx_set_current(self, ctx):
        pass

    def ctx_get_device(self):
        return 0

    def module_load_data(self, image, detail=""):
        return 0x2000

    def module_get_function(self, module, name):
        return 0x3000

    def launch_kernel(self, func, grid, block, shared_bytes, stream, params):
        pass


def fake_driver(tmp):
    """cuda.Driver over the fake libcuda (built here), or StubDriver."""
    cc = shutil.which("cc")
    if cc is None:
        return StubDriver(), "a Python stand-in driver (no C compiler)"
    lib = pathlib.Path(tmp) / "libcuda.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(lib),
                    str(ROOT / "python" / "test" / "fake_libcuda.c")], check=True)
    return cuda.Driver(str(lib)), "cuda.Driver over a fake libcuda.so"


class StubTensor:
    """What the runtime reads of a torch tensor (as Python methods: a real
    torch tensor's are C calls of about the same count)."""
    requires_grad = False
    is_leaf = True

    def __init__(self, shape, dtype, ptr):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.is_cuda = True
        self.device = types.SimpleNamespace(type="cuda", index=0)
        self._ptr = ptr
        self._strides = cuda._c_strides(self.shape)

    def get_device(self):
        return 0

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return self._strides

    def is_contiguous(self):
        return True

    def is_inference(self):
        return False

    def new_empty(self, shape, dtype=None):
        return StubTensor(shape, dtype, 0x7f0000800000)


def stub_torch():
    mod = types.ModuleType("torch")
    mod.Tensor = StubTensor
    mod.float32 = "torch.float32"
    mod.is_grad_enabled = lambda: True
    mod.is_inference_mode_enabled = lambda: False
    stream = types.SimpleNamespace(cuda_stream=0x5EED)
    mod.cuda = types.SimpleNamespace(current_stream=lambda device=None: stream,
                                     current_device=lambda: 0)
    mod._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0x5EED)
    mod.empty = lambda shape, dtype=None, device=None: StubTensor(shape, dtype, 0x7f0000800000)
    return mod


def add_bundle(root):
    """The add's bundle as the compiler writes it (M and N fixed)."""
    meta = {
        "target": "cuda", "arch": "sm_90a", "binary": "kernel.ptx", "entry": "add",
        "params": [
            {"name": n, "kind": "tensor", "dtype": "float32", "shape": list(SHAPE),
             "written": n == "C"} for n in "ABC"],
        # Each tensor a memref descriptor: pointers, offset, sizes, strides.
        "kernel_args": [a for i in range(3) for a in (
            {"kind": "ptr", "param": i}, {"kind": "ptr", "param": i}, {"kind": "const", "value": 0},
            {"kind": "dim", "param": i, "dim": 0}, {"kind": "dim", "param": i, "dim": 1},
            {"kind": "stride", "param": i, "dim": 0}, {"kind": "stride", "param": i, "dim": 1})],
        "grid": ["32", "32"], "block": [128, 1, 1], "shared_bytes": 0,
    }
    (root / "kernel.ptx").write_text(".version 8.0\n.target sm_90a\n.address_size 64\n")
    (root / "bundle.json").write_text(json.dumps(meta))


def without_gpu():
    sys.modules["torch"] = torch = stub_torch()
    from tilemlir.jit import JITKernel
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        drv, what = fake_driver(tmp)
        cuda.set_driver(drv)
        add_bundle(root)
        k = JITKernel(None, [2], "cuda:sm_90a", None, root)
        # The kernel function's compile gives this JITKernel (binding, the
        # probe and the call cache are the real ones).
        elementwise_add._compile = lambda values, consts: k
        a = StubTensor(SHAPE, torch.float32, 0x7f0000000000)
        b = StubTensor(SHAPE, torch.float32, 0x7f0000400000)
        c = StubTensor(SHAPE, torch.float32, 0x7f0000800000)
        ptrs = iter(range(0x7f0001000000, 1 << 62, 0x400000))
        print(f"without a GPU: stand-in torch tensors, {what}; host time per call")
        print(f"  runtime(a, b, c):               {us_per_call(lambda: k.runtime(a, b, c)):6.2f} us")
        print(f"  runtime(a, b, new c each call): "
              f"{us_per_call(lambda: k.runtime(a, b, StubTensor(SHAPE, c.dtype, next(ptrs)))):6.2f} us")
        print(f"  k(a, b):                        {us_per_call(lambda: k(a, b)):6.2f} us")
        # Outputs kept by the caller: each at a new address.
        same_address = StubTensor.new_empty, torch.empty
        StubTensor.new_empty = lambda self, shape, dtype=None: StubTensor(shape, dtype, next(ptrs))
        torch.empty = lambda shape, dtype=None, device=None: StubTensor(shape, dtype, next(ptrs))
        print(f"  k(a, b), outputs kept:          {us_per_call(lambda: k(a, b)):6.2f} us")
        StubTensor.new_empty, torch.empty = same_address
        print(f"  f(a, b, **kw):                  "
              f"{us_per_call(lambda: elementwise_add(a, b, **KW)):6.2f} us")
        if "--profile" in sys.argv:
            profile("for _ in range(20000): elementwise_add(a, b, **KW)", locals())


# --- On a GPU -----------------------------------------------------------------------------

def on_gpu():
    import torch
    a = torch.randn(*SHAPE, device="cuda")
    b = torch.randn(*SHAPE, device="cuda")
    c = torch.empty(*SHAPE, device="cuda")
    k = elementwise_add.compile(M=SHAPE[0], N=SHAPE[1], **KW)
    torch.testing.assert_close(k(a, b), a + b)
    torch.testing.assert_close(elementwise_add(a, b, **KW), a + b)
    k.runtime(a, b, c)
    torch.testing.assert_close(c, a + b)
    sync = torch.cuda.synchronize
    kept = collections.deque(maxlen=100)
    print(f"on {torch.cuda.get_device_name()}, torch {torch.__version__}; host time per call "
          "(a loop of calls without synchronizing):")
    rows = [("runtime(a, b, c)", lambda: k.runtime(a, b, c)),
            ("k(a, b)", lambda: k(a, b)),
            # The last 100 outputs kept: each at a new address.
            ("k(a, b), outputs kept", lambda: kept.append(k(a, b))),
            ("f(a, b, **kw)", lambda: elementwise_add(a, b, **KW)),
            ("torch.add(a, b)", lambda: torch.add(a, b)),
            ("torch.add(a, b, out=c)", lambda: torch.add(a, b, out=c)),
            ("torch.empty(1024, 1024)", lambda: torch.empty(*SHAPE, device="cuda"))]
    for name, fn in rows:
        print(f"  {name + ':':25s} {us_per_call(fn, sync=sync):6.2f} us")
    if "--profile" in sys.argv:
        profile("for _ in range(5000): elementwise_add(a, b, **KW)", locals())


def profile(stmt, names):
    import cProfile
    import pstats
    cProfile.runctx(stmt, globals(), names, "/tmp/host_call_overhead.prof")
    pstats.Stats("/tmp/host_call_overhead.prof").sort_stats("tottime").print_stats(16)


def main():
    if "--fill" in sys.argv:
        k = elementwise_add.compile(M=SHAPE[0], N=SHAPE[1], **KW)
        print(f"elementwise add: bundle in {k.bundle_dir}")
    elif "--gpu" in sys.argv:
        on_gpu()
    else:
        without_gpu()


if __name__ == "__main__":
    main()
