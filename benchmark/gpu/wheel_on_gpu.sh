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
# Into the environment's own Python, as a user of that machine would: on the
# H200 python3 is itself a virtual environment (/opt/torch/.venv) with torch
# and numpy, which a nested --system-site-packages venv would not see.
# --no-index: nothing is fetched; numpy (the only dependency) must be there.
python3 -c "import numpy" || { echo "numpy is missing"; exit 1; }
python3 -m pip install -q --no-index --no-deps --target "$work/site" "$wheel"
export PYTHONPATH="$work/site"
py=python3
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
