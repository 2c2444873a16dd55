// tile-lower-ops of tile.reduce max / min on floats: without
// nan_propagate a NaN loses to any number (arith.maxnumf / minnumf, as
// TileLang's default reductions); with it any NaN makes the result NaN
// (arith.maximumf / minimumf). The same on the CPU and on NVIDIA GPUs.
//
// RUN: tile-opt %s -split-input-file --tile-lower-ops=target=cpu | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-infer-layouts=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 | FileCheck %s

// CHECK-LABEL: func.func @skips_nan
// CHECK: arith.maxnumf
// CHECK-NOT: arith.maximumf
// CHECK: arith.minnumf
// CHECK-NOT: arith.minimumf
// CHECK: return
func.func @skips_nan(%a: memref<64x64xf32>, %b: memref<64xf32>, %c: memref<64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %n = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.copy %a to %s : memref<64x64xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.reduce max %s into %m dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.reduce min %s into %n dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.copy %m to %b : memref<64xf32, #tile.scope<fragment>> to memref<64xf32>
    tile.copy %n to %c : memref<64xf32, #tile.scope<fragment>> to memref<64xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @propagates_nan
// CHECK: arith.maximumf
// CHECK-NOT: arith.maxnumf
// CHECK: arith.minimumf
// CHECK-NOT: arith.minnumf
// CHECK: return
func.func @propagates_nan(%a: memref<64x64xf32>, %b: memref<64xf32>, %c: memref<64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %n = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.copy %a to %s : memref<64x64xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.reduce max %s into %m dim = 1 {nan_propagate} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.reduce min %s into %n dim = 1 {nan_propagate} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.copy %m to %b : memref<64xf32, #tile.scope<fragment>> to memref<64xf32>
    tile.copy %n to %c : memref<64xf32, #tile.scope<fragment>> to memref<64xf32>
  }
  return
}
