"""Issue 13's Python checks on a GPU machine: target="cuda" resolves to the
GPU present, and a kernel refuses torch outputs it must not write.

    # build machine (no GPU: "cuda" is sm_90a, the H200's chip)
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/safety_checks.py --fill
    # GPU machine (carry .jitcache; needs torch, not the compiler)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/safety_checks.py

Prints the compute capability the driver reports and the chip "cuda" and
"auto" resolve to, then "safety checks: ok".
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tilemlir  # noqa: E402
import tilemlir.language as T  # noqa: E402
from tilemlir.jit import present_compute_capability, resolve_target  # noqa: E402

N = 4096


@T.prim_func
def add_one(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
    with T.Kernel(N // 128, threads=128) as bx:
        for i in T.Parallel(128):
            B[bx * 128 + i] = A[bx * 128 + i] + 1.0


def refused(kernel, *args, match):
    try:
        kernel(*args)
    except ValueError as e:
        assert match in str(e), e
        return
    raise AssertionError(f"accepted arguments it must refuse ({match})")


def main():
    kernel = tilemlir.compile(add_one, target="cuda")
    if "--fill" in sys.argv:
        print(f"add_one for {kernel.target}: bundle in {kernel.bundle_dir}")
        return
    import torch
    cc = present_compute_capability()
    print(f"compute capability {cc}: cuda -> {resolve_target('cuda')}, "
          f"auto -> {resolve_target('auto')}")
    assert cc is not None, "the driver reports no GPU"
    if cc == (9, 0):
        assert resolve_target("cuda") == resolve_target("auto") == "cuda:sm_90a"
    elif cc[0] >= 8:
        assert resolve_target("cuda") == "cuda:sm_80"
    a = torch.randn(N, device="cuda")
    b = torch.empty_like(a)
    kernel(a, b)
    torch.cuda.synchronize()
    assert torch.equal(b, a + 1)
    big = torch.zeros(2 * N, device="cuda")
    refused(kernel, big[:N], big[N // 2:N // 2 + N], match="overlap in memory")
    kernel(big[:N], big[N:])  # adjacent, not overlapping
    torch.cuda.synchronize()
    assert torch.equal(big[N:], big[:N] + 1)
    leaf = torch.zeros(N, device="cuda", requires_grad=True)
    refused(kernel, a, leaf, match="requires grad")
    with torch.no_grad():
        kernel(a, leaf)  # torch writes leaves in no_grad too
    with torch.inference_mode():
        frozen = torch.zeros(N, device="cuda")
    refused(kernel, a, frozen, match="inference tensor")
    kernel(frozen, b)  # an inference tensor may be read
    torch.cuda.synchronize()
    print("safety checks: ok")


if __name__ == "__main__":
    main()
