"""The #tile.layout kernels of python/test/test_layouts.py on the GPU:
TileLang's flash-attention backward dQ pattern (atomic adds into a tensor
kept in the 8x8 GEMM fragment order, copied out through the same layout),
at a size whose rows the tiles do not divide, checked against torch.

    # build machine: compile into the cache
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/tensor_layouts_on_gpu.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/tensor_layouts_on_gpu.py
"""

import importlib
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tilemlir  # noqa: E402
import tilemlir.language as T  # noqa: E402

L, D, BLK = 200, 64, 64  # 200 rows: the last block of 64 hangs over the edge


def dq_layout(shape):
    return T.Layout(shape, lambda l, d: [l // 8, d // 8, d % 2, 4 * (l % 8) + (d % 8) // 2])


def kernels():
    @T.prim_func
    def accumulate(X: T.Tensor((L, D), "float32"), dQ: T.Tensor((L, D), "float32")):
        with T.Kernel(T.ceildiv(L, BLK), threads=128) as bx:
            T.annotate_layout({dQ: dq_layout(dQ.shape)})
            for i, j in T.Parallel(BLK, D):
                T.atomic_add(dQ[bx * BLK + i, j], X[bx * BLK + i, j] * 2.0)

    @T.prim_func
    def post(dQ: T.Tensor((L, D), "float32"), out: T.Tensor((L, D), "float16")):
        with T.Kernel(T.ceildiv(L, BLK), threads=128) as bx:
            T.annotate_layout({dQ: dq_layout(dQ.shape)})
            T.copy(dQ[bx * BLK:(bx + 1) * BLK, :], out[bx * BLK:(bx + 1) * BLK, :])

    return accumulate, post


def main():
    accumulate, post = kernels()
    fill = "--fill" in sys.argv
    built = {}
    for chip in ("sm_90a", "sm_80"):
        built[chip] = (tilemlir.compile(accumulate, target=f"cuda -arch={chip}"),
                       tilemlir.compile(post, out_idx=[-1], target=f"cuda -arch={chip}"))
    if fill:
        for chip, (k1, k2) in built.items():
            print(f"{chip}: {k1.bundle_dir} {k2.bundle_dir}")
        return
    import torch
    chip = importlib.import_module("tilemlir.jit").resolve_target("cuda").split(":")[1]
    k1, k2 = built[chip]
    x = torch.randn(L, D, device="cuda")
    dq = torch.zeros(L, D, device="cuda")
    k1(x, dq)
    k1(x, dq)  # twice: the adds accumulate
    out = k2(dq)
    torch.cuda.synchronize()
    ok_out = torch.allclose(out.float(), 4 * x, rtol=1e-3, atol=1e-3)
    offsets = dq_layout((L, D)).offsets()
    placed = dq.reshape(-1)[torch.as_tensor(offsets, device="cuda")]
    ok_placed = torch.allclose(placed, (4 * x).reshape(-1), rtol=1e-5, atol=1e-5)
    print(f"{chip}: copied out {'ok' if ok_out else 'WRONG'}; "
          f"memory in the layout's order {'ok' if ok_placed else 'WRONG'}")
    sys.exit(0 if ok_out and ok_placed else 1)


if __name__ == "__main__":
    main()
