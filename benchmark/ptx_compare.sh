#!/usr/bin/env bash
# Snapshots the generated code of a tree and compares two snapshots, so that a
# restructuring can show that it keeps the PTX (DEVELOPERS: "compare the PTX
# of the examples and the benchmark sets before and after").
#
#   benchmark/ptx_compare.sh gen SRC OUT   # SRC: a checkout with SRC/build built
#   benchmark/ptx_compare.sh cmp BASE NEW  # two OUT folders; exit 1 if any differ
#
# gen writes OUT/sets (benchmark/gpu/build_bundles.py), OUT/gemm
# (benchmark/gemm.py build --cluster --persistent), OUT/attention
# (benchmark/gpu/build_attention.py) and OUT/opt (tile-opt --tile-to-nvvm
# format=isa on examples/gemm, test/Target/NVVM/Inputs and
# test/Integration/CPU, for sm_80 and sm_90a, with the serializer's wall-time
# property LLVMIRToISATimeInMs removed). cmp compares every kernel.ptx and
# every tile-opt output byte by byte and prints a count per set.
set -u
mode=${1:?gen|cmp}
case "$mode" in
gen)
  src=$(cd "${2:?SRC}" && pwd); out=$(mkdir -p "${3:?OUT}" && cd "$3" && pwd)
  py="$src/.venv/bin/python"; [ -x "$py" ] || py=/work/main/.venv/bin/python
  export PYTHONPATH="$src/python"  # tilemlir finds $src/build/lib itself
  cd "$src"
  "$py" benchmark/gpu/build_bundles.py --out "$out/sets" >"$out/sets.log" 2>&1 || echo "sets: failed (see $out/sets.log)"
  "$py" benchmark/gemm.py build --cluster --persistent --out "$out/gemm" >"$out/gemm.log" 2>&1 || echo "gemm: failed"
  "$py" benchmark/gpu/build_attention.py --out "$out/attention" >"$out/attention.log" 2>&1 || echo "attention: failed"
  mkdir -p "$out/opt"
  for f in examples/gemm/*.mlir test/Target/NVVM/Inputs/*.mlir test/Integration/CPU/*.mlir; do
    for chip in sm_80 sm_90a; do
      name=$(echo "$f" | tr / _)."$chip"
      build/bin/tile-opt "$f" --tile-to-nvvm="chip=$chip format=isa" 2>/dev/null \
        | sed 's/LLVMIRToISATimeInMs = [0-9]* : i64, //; s/, LLVMIRToISATimeInMs = [0-9]* : i64//' \
        >"$out/opt/$name" || rm -f "$out/opt/$name"
    done
  done
  echo "gen: $(find "$out" -name kernel.ptx | wc -l) kernel.ptx, $(ls "$out/opt" | wc -l) tile-opt outputs"
  ;;
cmp)
  base=${2:?BASE}; new=${3:?NEW}; bad=0
  for set in sets gemm attention; do
    same=0; differ=0; missing=0
    while IFS= read -r p; do
      rel=${p#"$base/"}
      if [ ! -f "$new/$rel" ]; then missing=$((missing + 1)); echo "missing: $rel"
      elif cmp -s "$p" "$new/$rel"; then same=$((same + 1))
      else differ=$((differ + 1)); echo "differs: $rel"; fi
    done < <(find "$base/$set" -name kernel.ptx 2>/dev/null | sort)
    extra=$(comm -13 <(cd "$base" && find "$set" -name kernel.ptx 2>/dev/null | sort) \
                     <(cd "$new" && find "$set" -name kernel.ptx 2>/dev/null | sort) | wc -l)
    echo "$set: $same identical, $differ differ, $missing missing, $extra only in NEW"
    [ $((differ + missing)) -eq 0 ] || bad=1
  done
  same=0; differ=0
  for p in "$base"/opt/*; do
    n=$(basename "$p")
    if cmp -s "$p" "$new/opt/$n"; then same=$((same + 1)); else differ=$((differ + 1)); echo "differs: opt/$n"; fi
  done
  echo "tile-opt: $same identical, $differ differ"
  [ "$differ" -eq 0 ] || bad=1
  exit $bad
  ;;
*) echo "usage: $0 gen SRC OUT | cmp BASE NEW" >&2; exit 2 ;;
esac
