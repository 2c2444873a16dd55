"""GEMM on the GPU against cuBLAS (and Triton's tutorial kernel), one table.

On the build machine, compile the shape set into bundles:

    .venv/bin/python benchmark/gemm.py build --out .bundles/gemm [--arch sm_90a]

On the GPU machine (torch, triton and the pure-Python runtime; no compiler):

    python3 benchmark/gemm.py run .bundles/gemm [--triton] [--only SUBSTRING]

Every kernel is checked against a float32 torch reference on random inputs
before it is timed; the table gives TFLOP/s (triton.testing.do_bench
medians, in --rounds alternating rounds of ours and cuBLAS, the median
round) for ours, cuBLAS (torch.matmul, or torch._scaled_mm
for fp8) and, with --triton, the Triton tutorial kernel, and our ratio to
cuBLAS. Shapes: issue 6's set (M=N=K in 2048..16384, and M in {128, 1024,
4096, 16384} x (N, K) in {(4096, 4096), (11008, 4096), (4096, 11008),
(28672, 8192)}) in fp16 and bf16, fp8 e4m3 at 4096^3 and 8192^3, and
correctness-only shapes that are not multiples of the tiles.
"""

import argparse
import json
import pathlib
import shutil
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent

SQUARE = [2048, 4096, 8192, 16384]
ROWS = [128, 1024, 4096, 16384]
NK = [(4096, 4096), (11008, 4096), (4096, 11008), (28672, 8192)]

# Correctness-only: edges in every dimension and every operand layout.
ODD = [
    # M, N, K, trans_A, trans_B, dtype[, out_dtype]
    (4095, 4097, 1000, False, False, "float16"),
    (1000, 520, 264, False, False, "float16", "float32"),
    (300, 136, 200, False, True, "bfloat16", "float32"),
    (200, 328, 136, False, False, "float16"),
    (1000, 520, 264, False, True, "float16"),
    (1000, 520, 264, True, False, "bfloat16"),
    (1000, 520, 264, True, True, "float16"),
    (777, 1000, 392, False, True, "float8_e4m3"),
    # Tensors smaller than one TMA box in some dimension.
    (17, 72, 24, False, False, "float16"),
    (16, 32, 48, False, True, "float8_e4m3"),
]

NUM_SMS = 132


def hopper_config(M, N, K, dtype):
    """block_M, block_N, block_K, threads, num_stages for sm_90a, from the
    --tune runs recorded in benchmark/RESULTS.md: 128x256 tiles while they
    still give most SMs a block, 128x128 with deeper pipelines for fewer
    rows, 64x64 with 128-deep K stages for the smallest grids."""
    if dtype == "float8_e4m3":
        configs = [(128, 256, 128, 256, 4), (128, 128, 128, 256, 5), (64, 128, 128, 128, 6)]
        for bm, bn, bk, threads, stages in configs:
            if -(-M // bm) * -(-N // bn) >= NUM_SMS:
                return bm, bn, bk, threads, stages
        return configs[-1]

    def blocks(bm, bn):
        return -(-M // bm) * -(-N // bn)
    if blocks(128, 256) >= 100:
        return 128, 256, 64, 256, 4
    if blocks(128, 128) >= 66:
        return 128, 128, 64, 256, 6
    # Few blocks (M = 128): each streams its panels, so as many bytes in
    # flight as shared memory holds (6 stages of 128-deep K).
    return 64, 64, 128, 128, 6


def shape_set():
    out = []
    for dtype in ("float16", "bfloat16"):
        for s in SQUARE:
            out.append((s, s, s, False, False, dtype, None, True))
        for m in ROWS:
            for n, k in NK:
                out.append((m, n, k, False, False, dtype, None, True))
    for s in (4096, 8192):
        out.append((s, s, s, False, True, "float8_e4m3", None, True))
    out += [(*shape[:6], (shape[6:] or [None])[0], False) for shape in ODD]
    return list(dict.fromkeys(out))   # 4096^3 is in both sets


# --sweep: variants at the square shapes (fp16): warp specialization on /
# off and the L2 block-order panel (T.use_swizzle).
SWEEP = [(ws, panel) for ws in (True, False) for panel in (None, 4, 8, 16)]


# --tune: tile configurations tried at the shapes where the default is
# weakest (block_M, block_N, block_K, threads, num_stages).
TUNE_SHAPES = [(2048, 2048, 2048), (16384, 16384, 16384), (128, 4096, 4096),
               (128, 4096, 11008), (128, 11008, 4096), (4096, 11008, 4096)]
TUNE_CONFIGS = [(128, 256, 64, 256, 4), (128, 256, 64, 256, 3), (128, 128, 64, 256, 4),
                (128, 128, 64, 256, 6), (128, 128, 128, 256, 3), (64, 256, 64, 128, 4),
                (64, 128, 64, 128, 6), (64, 128, 128, 128, 4), (64, 64, 64, 128, 8),
                (128, 64, 64, 256, 6), (64, 64, 128, 128, 6), (64, 64, 128, 128, 4),
                (64, 64, 64, 128, 12), (64, 32, 128, 128, 6), (64, 32, 64, 128, 8),
                (64, 32, 128, 128, 4), (256, 128, 64, 512, 4), (256, 128, 64, 512, 3),
                (256, 128, 64, 256, 4), (256, 128, 64, 256, 3)]


# --persistent: persistent blocks (T.Persistent over NUM_SMS blocks; block_M,
# block_N, block_K, threads, num_stages, blocks) against one block per tile
# (blocks 0), fp16 and bf16, plus correctness-only odd shapes.
PERSIST_SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
                  (16384, 16384, 16384), (16384, 4096, 4096), (4096, 4096, 11008),
                  (1024, 4096, 4096), (1024, 4096, 11008), (4096, 11008, 4096)]
PERSIST_CONFIGS = [(128, 256, 64, 256, 4, 0), (128, 256, 64, 256, 3, 0),
                   (128, 256, 64, 256, 3, NUM_SMS),
                   (128, 256, 64, 256, 4, NUM_SMS), (128, 128, 64, 256, 5, NUM_SMS)]
PERSIST_ODD = [(4095, 4097, 1000, False, False, "float16"),
               (1000, 520, 264, False, True, "bfloat16"),
               (1000, 520, 264, True, True, "float16"),
               (17, 72, 24, False, False, "float16")]


# --epilogue: the accumulators' store without TMA (16-byte st.global from
# shared memory), against the default (stmatrix + TMA store), at these
# shapes in fp16 and bf16 (a config's 7th field: tma_store).
EPILOGUE_SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
                   (16384, 4096, 4096), (128, 4096, 4096), (4096, 11008, 4096)]


# --cluster: one block per tile in thread-block clusters of 2 along x (the
# two blocks multicast their A tile) or y (B), against no cluster, at these
# shapes in fp16 and bf16, plus correctness-only shapes (grids rounded up to
# whole clusters, transposed operands, fp8).
CLUSTER_SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
                  (16384, 4096, 4096), (4096, 11008, 4096), (1024, 4096, 4096)]
CLUSTER_ODD = [(4095, 4097, 1000, False, False, "float16"),
               (1000, 520, 264, True, True, "float16"),
               (1000, 520, 264, False, True, "bfloat16"),
               (777, 1000, 392, False, True, "float8_e4m3"),
               (17, 72, 24, False, False, "float16")]
CLUSTERS = [(2, 1), (1, 2)]


def build(args):
    sys.path.insert(0, str(HERE / "gpu"))
    import kernels
    import tilemlir
    out = pathlib.Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    index = []
    jobs = [(*shape, True, args.panel, "") for shape in shape_set()]
    if args.sweep:
        jobs += [(s, s, s, False, False, "float16", None, True, ws, panel,
                  f"_ws{int(ws)}_sw{panel or 0}")
                 for s in (4096, 8192, 16384) for ws, panel in SWEEP]
    if args.tune:
        jobs += [(m, n, k, False, False, "float16", None, True, True, args.panel,
                  f"_c{cfg[0]}x{cfg[1]}x{cfg[2]}t{cfg[3]}s{cfg[4]}", cfg)
                 for m, n, k in TUNE_SHAPES for cfg in TUNE_CONFIGS]
    if args.epilogue:
        jobs += [(m, n, k, False, False, dt, None, True, True, args.panel, "_st0",
                  (*hopper_config(m, n, k, dt), 0, False))
                 for dt in ("float16", "bfloat16") for m, n, k in EPILOGUE_SHAPES]
    if args.cluster:
        jobs += [(m, n, k, False, False, dt, None, True, True, args.panel, f"_cl{cx}x{cy}",
                  (*hopper_config(m, n, k, dt), 0, True, (cx, cy)))
                 for dt in ("float16", "bfloat16") for m, n, k in CLUSTER_SHAPES
                 for cx, cy in CLUSTERS]
        jobs += [(m, n, k, ta, tb, dt, None, False, True, args.panel, f"_cl{cx}x{cy}",
                  (*hopper_config(m, n, k, dt), 0, True, (cx, cy)))
                 for m, n, k, ta, tb, dt in CLUSTER_ODD for cx, cy in CLUSTERS]
    if args.persistent:
        def tag(cfg):
            return f"_c{cfg[0]}x{cfg[1]}x{cfg[2]}t{cfg[3]}s{cfg[4]}p{cfg[5]}"
        jobs += [(m, n, k, False, False, dt, None, True, True, args.panel, tag(cfg), cfg)
                 for dt in ("float16", "bfloat16") for m, n, k in PERSIST_SHAPES
                 for cfg in PERSIST_CONFIGS]
        jobs += [(m, n, k, ta, tb, dt, None, False, True, args.panel, tag(cfg), cfg)
                 for m, n, k, ta, tb, dt in PERSIST_ODD for cfg in PERSIST_CONFIGS if cfg[5]]
    for m, n, k, ta, tb, dtype, out_dtype, timed, ws, panel, suffix, *fixed in jobs:
        bm, bn, bk, threads, stages, *extra = (fixed[0] if fixed
                                               else hopper_config(m, n, k, dtype))
        blocks, tma_store, cluster = (list(extra) + [0, True, None][len(extra):])[:3]
        out_dtype = out_dtype or ("bfloat16" if dtype == "float8_e4m3" else dtype)
        name = f"{dtype}_{m}x{n}x{k}_{'t' if ta else 'n'}{'t' if tb else 'n'}{suffix}"
        if out_dtype not in (dtype, "bfloat16"):
            name += f"_{out_dtype}"
        if args.only and not any(part in name for part in args.only.split(",")):
            continue
        start = time.perf_counter()
        prim = kernels.gemm(m, n, k, block_M=bm, block_N=bn, block_K=bk, threads=threads,
                            num_stages=stages, dtype=dtype, trans_A=ta, trans_B=tb,
                            out_dtype=out_dtype, swizzle_panel=panel, warp_specialize=ws,
                            persistent=blocks, tma_store=tma_store, cluster=cluster)
        kernel = tilemlir.compile(prim, out_idx=[2], target=f"cuda -arch={args.arch}")
        seconds = time.perf_counter() - start
        shutil.copytree(kernel.bundle_dir, out / name)
        index.append({"name": name, "M": m, "N": n, "K": k, "trans_A": ta, "trans_B": tb,
                      "dtype": dtype, "out_dtype": out_dtype, "timed": timed,
                      "config": [bm, bn, bk, threads, stages, int(ws), panel or 0, blocks,
                                 int(tma_store), list(cluster or (1, 1))],
                      "arch": args.arch,
                      "compile_s": round(seconds, 3)})
        print(f"{name:40s} {bm}x{bn}x{bk} t{threads} s{stages} p{blocks}: "
              f"compiled in {seconds:.2f} s",
              flush=True)
    (out / "index.json").write_text(json.dumps(index, indent=1))


# --- On the GPU -----------------------------------------------------------------------------

def _triton_matmul():
    """The matrix multiplication of Triton's tutorial (03-matrix-multiplication):
    grouped block order, autotuned over its CUDA configurations."""
    import torch
    import triton
    import triton.language as tl

    configs = [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GM": 8}, num_stages=s, num_warps=w)
               for bm, bn, bk, s, w in [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4),
                                        (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
                                        (64, 128, 32, 4, 4), (128, 256, 128, 3, 8)]]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BM)
        num_n = tl.cdiv(N, BN)
        per_group = GM * num_n
        group = pid // per_group
        first_m = group * GM
        size_m = min(num_m - first_m, GM)
        pid_m = first_m + ((pid % per_group) % size_m)
        pid_n = (pid % per_group) // size_m
        rm = (pid_m * BM + tl.arange(0, BM)) % M
        rn = (pid_n * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        pa = a + rm[:, None] * sam + rk[None, :] * sak
        pb = b + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            x = tl.load(pa, mask=rk[None, :] < K - k * BK, other=0.0)
            y = tl.load(pb, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(x, y, acc)
            pa += BK * sak
            pb += BK * sbk
        cm = pid_m * BM + tl.arange(0, BM)
        cn = pid_n * BN + tl.arange(0, BN)
        pc = c + cm[:, None] * scm + cn[None, :] * scn
        tl.store(pc, acc.to(c.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))

    def matmul(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)  # noqa
        kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                     c.stride(0), c.stride(1))
        return c

    del torch
    return matmul


def _bad_tiles(c, ref, bm, bn):
    """Which output tiles are wrong: their count and the first few."""
    import torch
    bad = ((c.float() - ref).abs() > 1e-2 * ref.abs().max()) | torch.isnan(c)
    m, n = bad.shape
    tiles = bad[: m // bm * bm, : n // bn * bn].reshape(m // bm, bm, n // bn, bn)
    tiles = tiles.any(dim=3).any(dim=1).nonzero().tolist()
    return f"bad tiles {len(tiles)} of {(m // bm) * (n // bn)}: {tiles[:6]}"


def run(args):
    import torch
    import triton.testing
    sys.path.insert(0, str(HERE.parent / "python"))
    sys.path.insert(0, str(HERE / "gpu"))
    from run_bundles import gemm_case, rel_error
    from tilemlir.runtime import load_bundle

    def bench(fn):
        return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")

    root = pathlib.Path(args.bundles)
    index = json.loads((root / "index.json").read_text())
    triton_mm = _triton_matmul() if args.triton else None
    torch.manual_seed(0)
    print(f"GPU: {torch.cuda.get_device_name()}; TFLOP/s, median of {args.rounds} alternating "
          "rounds of do_bench medians")
    head = f"{'shape':22s} {'dtype':11s} {'layout':6s} {'ok':3s} {'rel.err':>8s} {'ours':>7s} " \
           f"{'cuBLAS':>7s} {'ratio':>6s}" + (f" {'Triton':>7s}" if triton_mm else "") + \
           "  config"
    print(head)
    ratios = []
    failed = 0
    for e in index:
        if args.only and not any(part in e["name"] for part in args.only.split(",")):
            continue
        m, n, k = e["M"], e["N"], e["K"]
        kernel = load_bundle(root / e["name"])
        fp8 = e["dtype"] == "float8_e4m3"
        a, b, c, ref, theirs_fn = gemm_case(e)
        kernel(a, b, c)
        torch.cuda.synchronize()
        err, ok = rel_error(c, ref, 1e-2)
        failed += not ok
        layout = ("t" if e["trans_A"] else "n") + ("t" if e["trans_B"] else "n")
        line = f"{f'{m}x{n}x{k}':22s} {e['dtype']:11s} {layout:6s} {'yes' if ok else 'NO':3s} " \
               f"{err:8.1e}"
        if not ok:
            line += "  " + _bad_tiles(c, ref, e["config"][0], e["config"][1])
        if not e["timed"] or not ok or args.check_only:
            print(line, flush=True)
            continue
        flops = 2 * m * n * k
        # Alternating rounds (ours, theirs, ours, ...), the median of each
        # side's medians: neither side always runs on a GPU the other one
        # just heated (clocks drift over a run, most for short kernels).
        times = {"ours": [], "theirs": []}
        for _ in range(args.rounds):
            times["ours"].append(bench(lambda: kernel(a, b, c)))
            if theirs_fn:
                times["theirs"].append(bench(theirs_fn))
        ours = flops / statistics.median(times["ours"]) / 1e9
        theirs = (flops / statistics.median(times["theirs"]) / 1e9 if theirs_fn
                  else float("nan"))
        ratio = ours / theirs
        ratios.append((e, ratio))
        line += f" {ours:7.0f} {theirs:7.0f} {ratio:6.2f}"
        if triton_mm and not fp8 and not e["trans_A"] and not e["trans_B"]:
            t = torch.empty_like(c)
            triton_mm(a, b, t)
            line += f" {flops / bench(lambda: triton_mm(a, b, t)) / 1e9:7.0f}"
        elif triton_mm:
            line += f" {'-':>7s}"
        cfg = e["config"]
        line += "  " + "x".join(map(str, cfg[:3])) + f" t{cfg[3]} s{cfg[4]} ws{cfg[5]} sw{cfg[6]}" \
            + (f" p{cfg[7]}" if len(cfg) > 7 and cfg[7] else "") \
            + (" st0" if len(cfg) > 8 and not cfg[8] else "") \
            + (f" cl{cfg[9][0]}x{cfg[9][1]}" if len(cfg) > 9 and cfg[9] != [1, 1] else "")
        print(line, flush=True)
    for label, dts in (("fp16/bf16", ("float16", "bfloat16")), ("fp8", ("float8_e4m3",))):
        rs = [r for e, r in ratios if e["dtype"] in dts]
        if rs:
            geo = 1.0
            for r in rs:
                geo *= r
            geo **= 1 / len(rs)
            print(f"{label}: geometric mean ratio {geo:.3f} over {len(rs)} shapes, "
                  f"min {min(rs):.3f}")
    if failed:
        print(f"{failed} kernel(s) FAILED the correctness check")
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="compile the bundles (build machine)")
    b.add_argument("--out", default=".bundles/gemm")
    b.add_argument("--arch", default="sm_90a")
    b.add_argument("--only", help="only kernels whose name contains this (or one of these, comma-separated)")
    b.add_argument("--panel", type=int, default=8,
                   help="T.use_swizzle panel size of the shape set (0: off)")
    b.add_argument("--tune", action="store_true",
                   help="also compile TUNE_CONFIGS at TUNE_SHAPES (fp16)")
    b.add_argument("--persistent", action="store_true",
                   help="also compile PERSIST_CONFIGS (persistent blocks against one block "
                        "per tile) at PERSIST_SHAPES, and odd shapes")
    b.add_argument("--cluster", action="store_true",
                   help="also compile CLUSTERS (TMA multicast) at CLUSTER_SHAPES and "
                        "CLUSTER_ODD")
    b.add_argument("--epilogue", action="store_true",
                   help="also compile the store of C without TMA at EPILOGUE_SHAPES")
    b.add_argument("--sweep", action="store_true",
                   help="also compile variants (warp specialization, block order) at "
                        "4096^3 .. 16384^3")
    r = sub.add_parser("run", help="check and time the bundles (GPU machine)")
    r.add_argument("bundles")
    r.add_argument("--rounds", type=int, default=3,
                   help="alternating timing rounds of ours and cuBLAS (median of each)")
    r.add_argument("--triton", action="store_true", help="also time Triton's tutorial kernel")
    r.add_argument("--only", help="only kernels whose name contains this (or one of these, comma-separated)")
    r.add_argument("--check-only", action="store_true", help="check, do not time")
    args = parser.parse_args()
    build(args) if args.cmd == "build" else run(args)


if __name__ == "__main__":
    main()
