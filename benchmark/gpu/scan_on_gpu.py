"""T.cumsum / T.cummax (tile.scan) on the GPU against torch.cumsum /
torch.cummax: shared and fragment tiles in both dims and directions, 1-d
lines split over the block's warps, tiles and lines that are not multiples
of the 32 lanes, a block whose threads are not whole warps, sub-regions of
wider buffers, f16 / f64 / int32. The kernels are compiled on the build
machine into a disk cache, then run on the GPU machine from it:

    # build machine (no GPU: "cuda" compiles for sm_90a)
    TILEMLIR_CACHE_DIR=.jitcache .venv/bin/python benchmark/gpu/scan_on_gpu.py --fill
    # GPU machine (carry .jitcache)
    TILEMLIR_CACHE_DIR=.jitcache PYTHONPATH=python python3 benchmark/gpu/scan_on_gpu.py

Prints one line a kernel (max error, ok / MISMATCH); exits 1 on a mismatch.
"""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import tilemlir  # noqa: E402
import tilemlir.language as T  # noqa: E402


def tiles(M, N, bm, bn, op, dim, reverse, scope, dtype, threads):
    """Each block scans its bm x bn tile of A in place and stores it to B."""
    scan = T.cumsum if op == "sum" else T.cummax

    @T.prim_func
    def k(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=threads) as (bx, by):
            if scope == "shared":
                t = T.alloc_shared((bm, bn), dtype)
            else:
                t = T.alloc_fragment((bm, bn), dtype)
            T.copy(A[by * bm, bx * bn], t)
            scan(t, dim=dim, reverse=reverse)
            T.copy(t, B[by * bm, bx * bn])
    return k


def lines(N, chunk, op, reverse, threads, dtype):
    """Each block scans `chunk` elements of A, from shared into a fragment."""
    scan = T.cumsum if op == "sum" else T.cummax

    @T.prim_func
    def k(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, chunk), threads=threads) as bx:
            s = T.alloc_shared((chunk,), dtype)
            f = T.alloc_fragment((chunk,), dtype)
            T.copy(A[bx * chunk:bx * chunk + chunk], s)
            scan(src=s, dst=f, reverse=reverse)
            T.copy(f, B[bx * chunk:bx * chunk + chunk])
    return k


def subregion(M, N, op, dim, reverse):
    """A region of a wider shared buffer scanned into a region of another."""
    scan = T.cumsum if op == "sum" else T.cummax

    @T.prim_func
    def k(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=256):
            src = T.alloc_shared((M, N + 24), "float32")
            dst = T.alloc_shared((M + 3, N + 40), "float32")
            for i, j in T.Parallel(M, N):
                src[i, j] = A[i, j]
            scan(src=src[0:M, 0:N], dst=dst[3:M + 3, 8:N + 8], dim=dim, reverse=reverse)
            for i, j in T.Parallel(M, N):
                B[i, j] = dst[i + 3, j + 8]
    return k


def scan_ref(t, x, op, dim, reverse):
    if reverse:
        x = x.flip(dim)
    y = x.cumsum(dim) if op == "sum" else x.cummax(dim).values
    return y.flip(dim) if reverse else y


def tiled_ref(t, a, bm, bn, op, dim, reverse):
    """The scan of every bm x bn tile of `a`, padded with zeros as T.copy
    pads edge tiles."""
    M, N = a.shape
    pm, pn = -(-M // bm) * bm, -(-N // bn) * bn
    p = t.zeros(pm, pn, dtype=a.dtype, device=a.device)
    p[:M, :N] = a
    out = t.empty_like(p)
    for i in range(0, pm, bm):
        for j in range(0, pn, bn):
            out[i:i + bm, j:j + bn] = scan_ref(t, p[i:i + bm, j:j + bn], op, dim, reverse)
    return out[:M, :N]


def chunked_ref(t, a, chunk, op, reverse):
    return tiled_ref(t, a[None, :], 1, chunk, op, 1, reverse)[0]


def cases():
    """(name, prim_func, make inputs, reference) with torch imported lazily."""
    out = []
    for scope in ("shared", "fragment"):
        for op in ("sum", "max"):
            for dim, reverse in ((0, False), (1, False), (1, True), (0, True)):
                out.append((f"{scope} {op} 256x256 tiles 64x64 dim {dim}{' reverse' if reverse else ''}",
                            tiles(256, 256, 64, 64, op, dim, reverse, scope, "float32", 256),
                            lambda t: [t.randn(256, 256)],
                            lambda t, a, op=op, dim=dim, rev=reverse:
                                tiled_ref(t, a, 64, 64, op, dim, rev)))
    out += [
        ("shared sum 200x150 tiles 64x32 dim 0 (edge tiles)",
         tiles(200, 150, 64, 32, "sum", 0, False, "shared", "float32", 256),
         lambda t: [t.randn(200, 150)], lambda t, a: tiled_ref(t, a, 64, 32, "sum", 0, False)),
        ("fragment max 200x150 tiles 64x32 dim 1 reverse (edge tiles)",
         tiles(200, 150, 64, 32, "max", 1, True, "fragment", "float32", 128),
         lambda t: [t.randn(200, 150)], lambda t, a: tiled_ref(t, a, 64, 32, "max", 1, True)),
        ("shared sum f16 128x128 tiles 64x64 dim 1, 48 threads",
         tiles(128, 128, 64, 64, "sum", 1, False, "shared", "float16", 48),
         lambda t: [t.randint(-3, 4, (128, 128)).half()],  # exact sums in f16
         lambda t, a: tiled_ref(t, a.float(), 64, 64, "sum", 1, False)),
        ("fragment max int32 96x80 tiles 32x40 dim 0",
         tiles(96, 80, 32, 40, "max", 0, False, "fragment", "int32", 64),
         lambda t: [t.randint(-1000, 1000, (96, 80), dtype=t.int32)],
         lambda t, a: tiled_ref(t, a, 32, 40, "max", 0, False)),
        ("shared sum f64 64x96 tiles 64x96 dim 0",
         tiles(64, 96, 64, 96, "sum", 0, False, "shared", "float64", 128),
         lambda t: [t.randn(64, 96).double()],
         lambda t, a: tiled_ref(t, a, 64, 96, "sum", 0, False)),
        ("1-d sum 4096, 1024 a block on 8 warps (split lines)",
         lines(4096, 1024, "sum", False, 256, "float32"), lambda t: [t.randn(4096)],
         lambda t, a: chunked_ref(t, a, 1024, "sum", False)),
        ("1-d max reverse 1000, 512 a block on 4 warps (split, edge)",
         lines(1000, 512, "max", True, 128, "float32"), lambda t: [t.randn(1000)],
         lambda t, a: chunked_ref(t, a, 512, "max", True)),
        ("1-d max reverse 80, 40 a block on 2 warps, negative",
         lines(80, 40, "max", True, 64, "float32"),
         lambda t: [-t.arange(1, 81, dtype=t.float32)],
         lambda t, a: chunked_ref(t, a, 40, "max", True)),
        ("1-d sum 250, 64 a block on 64 threads", lines(250, 64, "sum", False, 64, "float32"),
         lambda t: [t.randn(250)], lambda t, a: chunked_ref(t, a, 64, "sum", False)),
    ]
    for op in ("sum", "max"):
        for dim in (0, 1):
            out.append((f"sub-region {op} 8x40 dim {dim} out of place", subregion(8, 40, op, dim, dim == 1),
                        lambda t: [t.randint(-3, 4, (8, 40)).float()],
                        lambda t, a, op=op, dim=dim: scan_ref(t, a, op, dim, dim == 1)))
    return out


def main():
    fill = "--fill" in sys.argv
    failed = False
    for name, func, make_inputs, ref in cases():
        kernel = tilemlir.compile(func, out_idx=[-1], target="cuda")
        if fill:
            print(f"{name}: bundle in {kernel.bundle_dir}")
            continue
        import torch
        torch.manual_seed(0)
        inputs = [x.cuda() for x in make_inputs(torch)]
        out = kernel(*inputs)
        want = ref(torch, *inputs)
        err = (out.double() - want.double()).abs().max().item()
        tol = 2e-2 if out.dtype == torch.float16 else 1e-3
        ok = torch.allclose(out.double(), want.double(), rtol=tol, atol=tol)
        failed |= not ok
        print(f"{name}: max error {err:.3g} {'ok' if ok else 'MISMATCH'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
