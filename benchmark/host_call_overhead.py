"""Host time of one kernel call in the Python runtime, without a GPU: the
path from JITKernel.__call__ / CudaKernel.__call__ down to the driver call,
with the driver and torch replaced by stand-ins that do nothing (so this
measures only our Python work; benchmark/gpu/launch_overhead.py measures
the real thing on a GPU).

    python3 benchmark/host_call_overhead.py [--profile]

Prints microseconds per call for: a repeated launch of the same tensors
(the runtime's launch cache), a launch with a new output each call (the
checked path), and a JIT kernel with out_idx (allocates its output)."""

import pathlib
import sys
import json
import tempfile
import time
import timeit
import types

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from tilemlir.runtime import cuda  # noqa: E402


class StubDriver:
    """cuda.Driver's launch-path calls, doing nothing."""

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
    """An elementwise add C = A + B of M x 1024 float32 (M dynamic), as
    the compiler writes its bundle."""
    meta = {
        "target": "cuda", "arch": "sm_90a", "binary": "kernel.ptx", "entry": "add",
        "params": [
            {"name": "A", "kind": "tensor", "dtype": "float32", "shape": ["M", 1024],
             "written": False},
            {"name": "B", "kind": "tensor", "dtype": "float32", "shape": ["M", 1024],
             "written": False},
            {"name": "C", "kind": "tensor", "dtype": "float32", "shape": ["M", 1024],
             "written": True},
        ],
        "kernel_args": [{"kind": "ptr", "param": 0}, {"kind": "ptr", "param": 1},
                        {"kind": "ptr", "param": 2}, {"kind": "dim", "param": 0, "dim": 0}],
        "grid": ["(M + 31) // 32", "8"], "block": [256, 1, 1], "shared_bytes": 0,
    }
    (root / "kernel.ptx").write_text(".version 8.0\n.target sm_90a\n.address_size 64\n")
    (root / "bundle.json").write_text(json.dumps(meta))


def us_per_call(fn, n=10000):
    # CPU time of this process, the best of several runs: steadier than the
    # wall clock on a shared machine.
    fn()
    return min(timeit.repeat(fn, number=n, repeat=9, timer=time.process_time)) / n * 1e6


def main():
    sys.modules["torch"] = torch = stub_torch()
    cuda.set_driver(StubDriver())
    from tilemlir.jit import JITKernel
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        add_bundle(root)
        k = cuda.CudaKernel(root, json.loads((root / "bundle.json").read_text()))
        a = StubTensor((1024, 1024), torch.float32, 0x7f0000000000)
        b = StubTensor((1024, 1024), torch.float32, 0x7f0000400000)
        c = StubTensor((1024, 1024), torch.float32, 0x7f0000800000)
        ptrs = iter(range(0x7f0001000000, 1 << 62, 0x400000))
        print(f"runtime, same tensors (launch cache): {us_per_call(lambda: k(a, b, c)):.2f} us")
        print(f"runtime, new output each call:        "
              f"{us_per_call(lambda: k(a, b, StubTensor(c.shape, c.dtype, next(ptrs)))):.2f} us")
        jk = JITKernel(None, [2], "cuda:sm_90a", None, root)
        print(f"JIT kernel(A, B) -> C (out_idx=[2]):   {us_per_call(lambda: jk(a, b)):.2f} us")
        if "--profile" in sys.argv:
            import cProfile
            import pstats
            cProfile.runctx("for _ in range(20000): jk(a, b)", globals(), locals(), "/tmp/prof")
            pstats.Stats("/tmp/prof").sort_stats("tottime").print_stats(14)


if __name__ == "__main__":
    main()
