#!/usr/bin/env bash
# The wheel on a GPU machine (Ubuntu 24.04, Python 3.12, torch, no LLVM, no
# package index): installs it into a virtual environment that sees the
# system's torch, triton and numpy, and from a directory outside the
# checkout compiles and runs there the examples and the benchmark set,
# checked against torch, with compile times.
#
#   bash benchmark/gpu/wheel_on_gpu.sh dist/tilemlir-*.whl [--no-set]
#
# (From the build machine: the device tool's run with carry ["dist"].)
# TileLang's start-up figures beside ours: wheel_on_gpu.py --tilelang-only.
set -euo pipefail
wheel=$(readlink -f "$1"); shift
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/tilemlir-wheel-XXXX)
echo "wheel: $wheel ($(du -h "$wheel" | cut -f1))"
python3 -m venv --system-site-packages "$work/venv"
# --no-index: nothing is fetched; numpy (the only dependency) is the system's.
"$work/venv/bin/pip" install -q --no-index "$wheel"
py="$work/venv/bin/python"
# Scripts copied out of the checkout: nothing imports its python/.
cp -r "$repo/benchmark" "$repo/examples" "$work/"
cd "$work"
mode=${1:-}
status=0
"$py" benchmark/gpu/wheel_on_gpu.py $mode || status=1
if [ -z "$mode" ]; then
  # The benchmark set compiled here (one line a kernel with its compile
  # time), then checked and timed against torch.
  TILEMLIR_CACHE_DIR="$work/cache" "$py" benchmark/gpu/build_bundles.py \
    --out "$work/bundles" --archs sm_90a || status=1
  "$py" benchmark/gpu/run_bundles.py "$work/bundles" || status=1
fi
exit $status
