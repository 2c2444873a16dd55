#!/usr/bin/env python3
"""Compares the full PTX of a few representative kernels with the copies
checked in beside this script (golden-ptx.test), so that any change of the
NVIDIA code generation shows up as a failing test with its diff.

    golden.py --opt build/bin/tile-opt --src . [--update]

Each entry of KERNELS is compiled with `tile-opt --tile-to-nvvm='chip=...
format=isa'`, the PTX of the named gpu.binary is extracted (extract_ptx.py)
and compared byte by byte with <name>.ptx here. --update rewrites the
checked-in copies instead: run it when a change of the generated code is
intended, and review the diff in the commit.

Standard library only."""

import argparse
import difflib
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from extract_ptx import extract  # noqa: E402

# name, input (relative to the source root), chip, gpu.binary
KERNELS = [
    ("gemm-f16-sm80", "examples/gemm/gemm.mlir", "sm_80", "gemm_kernel"),
    ("gemm-f16-sm90a", "examples/gemm/gemm_sm90.mlir", "sm_90a", "gemm_kernel"),
    ("gemm-tma-store-sm90a", "test/Target/NVVM/Inputs/gemm-tma-store.mlir", "sm_90a",
     "gemm_f16_kernel"),
    ("flash-attention-sm80", "test/Target/NVVM/Inputs/flash-attention.mlir", "sm_80",
     "main_kernel"),
    ("flash-attention-sm90a", "test/Target/NVVM/Inputs/flash-attention.mlir", "sm_90a",
     "main_kernel"),
    ("softmax-f16-sm80", "test/Integration/CPU/softmax.mlir", "sm_80", "softmax_f16_kernel"),
    ("guarded-tail-sm90a", "test/Target/NVVM/Inputs/guards.mlir", "sm_90a", "tail_kernel"),
]


def compile_ptx(opt, src, chip, kernel):
    out = subprocess.run([opt, str(src), f"--tile-to-nvvm=chip={chip} format=isa"],
                         check=True, capture_output=True, text=True).stdout
    return extract(out, kernel)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--opt", required=True, help="the tile-opt to run")
    parser.add_argument("--src", required=True, help="the source root")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the checked-in PTX instead of comparing")
    args = parser.parse_args()
    failed = 0
    for name, rel, chip, kernel in KERNELS:
        ptx = compile_ptx(args.opt, pathlib.Path(args.src) / rel, chip, kernel)
        golden = HERE / f"{name}.ptx"
        if args.update:
            golden.write_text(ptx)
            print(f"{name}: written")
            continue
        expected = golden.read_text() if golden.exists() else ""
        if ptx == expected:
            print(f"{name}: identical")
            continue
        failed += 1
        print(f"{name}: PTX differs from {golden.name} ({rel}, {chip}, @{kernel}):")
        sys.stdout.writelines(difflib.unified_diff(
            expected.splitlines(True), ptx.splitlines(True), f"{golden.name} (checked in)",
            f"{name} (now)", n=2))
    if failed:
        print(f"{failed} kernel(s) changed; if intended, run golden.py --update and commit "
              "the new PTX")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
