"""`make demo`: the seed GEMM (examples/gemm/gemm.mlir) through every
pipeline TileMLIR has today, with what each stage produced and how long it
took."""

import argparse
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED = ROOT / "examples" / "gemm" / "gemm.mlir"
TARGETS = ["cpu", "sm_80", "sm_90a", "gfx942"]


def run(tile_opt, args):
    start = time.perf_counter()
    proc = subprocess.run([tile_opt, str(SEED), *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"demo: tile-opt {' '.join(args)} failed")
    return proc.stdout, elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tile-opt", default=str(ROOT / "build" / "bin" / "tile-opt"))
    args = parser.parse_args()

    print(f"seed GEMM: {SEED.relative_to(ROOT)}")
    out, t = run(args.tile_opt, ["--canonicalize", "--cse"])
    ops = sorted({line.split()[0] for line in out.splitlines()
                  if line.strip().startswith("tile.")} |
                 {line.split("=")[1].split()[0] for line in out.splitlines()
                  if "= tile." in line})
    print(f"  parse + verify + canonicalize + cse: ok in {t * 1000:.0f} ms; tile ops: {', '.join(ops)}")
    for target in TARGETS:
        _, t = run(args.tile_opt, [f"--tile-verify-target=target={target}"])
        print(f"  tile-verify-target target={target}: legal ({t * 1000:.0f} ms)")
    print("demo: ok")


if __name__ == "__main__":
    main()
