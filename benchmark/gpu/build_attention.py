"""Compiles flash-attention forward variants (tile sizes, warps, stages) of
examples/flash_attention/example_mha_fwd.py into bundles, for
run_bundles.py on the H200:

    .venv/bin/python benchmark/gpu/build_attention.py --out .bundles/attention
    python3 benchmark/gpu/run_bundles.py .bundles/attention      # on the GPU
"""

import argparse
import json
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "python"))
sys.path.insert(0, str(HERE))

import tilemlir  # noqa: E402
from build_bundles import _load_flash_attention, compile_bundle  # noqa: E402

# (batch, heads, seq, dim, causal, dtype)
SHAPES = [
    (4, 16, 2048, 64, False, "float16"), (4, 16, 2048, 64, True, "float16"),
    (4, 16, 2048, 128, False, "float16"), (4, 16, 2048, 128, True, "float16"),
    (1, 16, 8192, 128, False, "float16"), (1, 16, 8192, 128, True, "float16"),
    (1, 2, 200, 64, True, "float16"), (1, 3, 333, 128, False, "float16"),
    # bf16, the dtype of PLATFORM.md's attention anchors
    (1, 16, 8192, 128, False, "bfloat16"), (1, 16, 8192, 128, True, "bfloat16"),
    (1, 3, 333, 128, True, "bfloat16"),
]
# (block_M, block_N, threads, num_stages)
CONFIGS = [(64, 64, 128, 2), (128, 64, 128, 2), (128, 64, 256, 2), (128, 128, 256, 2)]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=".bundles/attention")
    parser.add_argument("--archs", nargs="+", default=["sm_80", "sm_90a"])
    parser.add_argument("--configs", nargs="*", help="bM,bN,threads,stages ...")
    args = parser.parse_args()
    configs = ([tuple(int(x) for x in c.split(",")) for c in args.configs]
               if args.configs else CONFIGS)
    out = pathlib.Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    fa = _load_flash_attention()
    index = []
    for arch in args.archs:
        for batch, heads, seq, dim, causal, dtype in SHAPES:
            for bm, bn, threads, stages in configs:
                name = (f"mha_b{batch}h{heads}s{seq}d{dim}{'c' if causal else ''}"
                        f"{'_bf16' if dtype == 'bfloat16' else ''}"
                        f"_{bm}x{bn}t{threads}s{stages}_{arch}")
                try:
                    prim = fa.flashattn.factory(batch, heads, seq, dim, causal, block_M=bm,
                                                block_N=bn, num_stages=stages,
                                                threads=threads, dtype=dtype)
                    compile_bundle(out, index, name, prim, [3], arch, kind="attention",
                                   batch=batch, heads=heads, seq=seq, dim=dim,
                                   causal=causal, dtype=dtype)
                except tilemlir.TileCompileError as e:
                    print(f"{name}: not compiled: {str(e).splitlines()[0]}")
    (out / "index.json").write_text(json.dumps(index, indent=1))


if __name__ == "__main__":
    main()
