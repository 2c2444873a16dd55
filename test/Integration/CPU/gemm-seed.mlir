// The seed GEMM (examples/gemm/gemm.mlir) on the CPU, checked against numpy
// at shapes that are not multiples of the 128x128x32 tiles.
// RUN: tile-run %tile_src_root/examples/gemm/gemm.mlir --entry=gemm --seed=1 \
// RUN:   --arg=f16:200x136 --arg=f16:136x328 --arg=f16:200x328:poison --save=%t.a
// RUN: %python %S/check.py %t.a --out 2 --ref "in0 @ in1" --rtol 1e-2 --atol 1e-2 | FileCheck %s
// RUN: tile-run %tile_src_root/examples/gemm/gemm.mlir --entry=gemm --seed=2 \
// RUN:   --arg=f16:1x95 --arg=f16:95x257 --arg=f16:1x257:poison --save=%t.b
// RUN: %python %S/check.py %t.b --out 2 --ref "in0 @ in1" --rtol 1e-2 --atol 1e-2 | FileCheck %s
// RUN: tile-run %tile_src_root/examples/gemm/gemm.mlir --entry=gemm --seed=3 \
// RUN:   --arg=f16:256x64 --arg=f16:64x384 --arg=f16:256x384:poison --save=%t.c
// RUN: %python %S/check.py %t.c --out 2 --ref "in0 @ in1" --rtol 1e-2 --atol 1e-2 | FileCheck %s

// CHECK: out2: ok
