"""TileLang's Hopper GEMM with its epilogue through a shared tile (C_shared)
against the same program storing C_local directly (issue 13: it should run
at >= 0.98x): fp16 4096^3, 128x256x64 tiles, 256 threads, 3 or 4 stages,
without T.use_swizzle or with panel_size 10 or 8.

On the build machine:

    .venv/bin/python benchmark/gpu/compare_epilogue.py build --out .bundles/epilogue

On the H200 (torch, triton; the pure-Python runtime, no compiler):

    python3 benchmark/gpu/compare_epilogue.py run .bundles/epilogue [--rounds 5]

Each bundle is checked against torch.matmul on random inputs, then the pair
is timed in alternating rounds (triton.testing.do_bench medians, the median
round); prints TFLOP/s of both and their ratio, and exits non-zero when a
kernel is wrong or a ratio is below --min-ratio (0.98)."""

import argparse
import json
import pathlib
import shutil
import statistics
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "python"))
sys.path.insert(0, str(HERE))

M = N = K = 4096
VARIANTS = [(stages, panel) for stages in (3, 4) for panel in (None, 10, 8)]


def variant_name(stages, panel, c_shared):
    return f"s{stages}_swz{panel or 0}_{'cshared' if c_shared else 'direct'}"


def build(args):
    import kernels
    from build_bundles import compile_bundle
    out = pathlib.Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    index = []
    for stages, panel in VARIANTS:
        for c_shared in (True, False):
            prim = kernels.gemm(M, N, K, block_M=128, block_N=256, block_K=64, threads=256,
                                num_stages=stages, swizzle_panel=panel, c_shared=c_shared)
            compile_bundle(out, index, variant_name(stages, panel, c_shared), prim, [2],
                           "sm_90a", kind="gemm", M=M, N=N, K=K, trans_A=False,
                           trans_B=False, dtype="float16")
    (out / "index.json").write_text(json.dumps(index, indent=1))


def run(args):
    import torch
    from run_bundles import bench, gemm_case, rel_error
    from tilemlir.runtime import load_bundle
    root = pathlib.Path(args.bundles)
    entries = {e["name"]: e for e in json.loads((root / "index.json").read_text())}
    print(f"GPU: {torch.cuda.get_device_name()}")
    print(f"{'variant':12s} {'C_shared':>10s} {'direct':>10s} {'ratio':>6s}   TFLOP/s")
    flops = 2 * M * N * K
    failures = 0
    for stages, panel in VARIANTS:
        pair = [variant_name(stages, panel, c) for c in (True, False)]
        a, b, c, ref, _ = gemm_case(entries[pair[0]])
        loaded = [load_bundle(root / name) for name in pair]
        for name, kernel in zip(pair, loaded):
            c.fill_(float("nan"))
            kernel(a, b, c)
            torch.cuda.synchronize()
            err, ok = rel_error(c, ref, 1e-2)
            if not ok:
                print(f"{name}: WRONG (relative error {err:.2e})")
                failures += 1
        rounds = [[bench(lambda k=k: k(a, b, c)) for k in loaded] for _ in range(args.rounds)]
        shared_ms = statistics.median(r[0] for r in rounds)
        direct_ms = statistics.median(r[1] for r in rounds)
        ratio = direct_ms / shared_ms
        failures += ratio < args.min_ratio
        print(f"s{stages} swz{panel or 0:<4} {flops / shared_ms / 1e9:10.1f} "
              f"{flops / direct_ms / 1e9:10.1f} {ratio:6.3f}"
              f"{'  BELOW ' + str(args.min_ratio) if ratio < args.min_ratio else ''}")
    sys.exit(1 if failures else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", default=".bundles/epilogue")
    r = sub.add_parser("run")
    r.add_argument("bundles")
    r.add_argument("--rounds", type=int, default=5)
    r.add_argument("--min-ratio", type=float, default=0.98)
    args = parser.parse_args()
    build(args) if args.cmd == "build" else run(args)


if __name__ == "__main__":
    main()
