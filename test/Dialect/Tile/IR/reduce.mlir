// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.reduce: every kind, every dimension, scopes, clear,
// nan_propagate.

// CHECK-LABEL: func.func @reduce_kinds
func.func @reduce_kinds() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[S:.*]] = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    // CHECK: %[[ROWS:.*]] = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %rows = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: %[[COLS:.*]] = tile.alloc_shared : memref<32xf32, #tile.scope<shared>>
    %cols = tile.alloc_shared : memref<32xf32, #tile.scope<shared>>
    // CHECK: tile.reduce sum %[[S]] into %[[ROWS]] dim = 1 : memref<64x32xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.reduce sum %s into %rows dim = 1 : memref<64x32xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.reduce max %[[S]] into %[[ROWS]] dim = 1 : memref<64x32xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.reduce max %s into %rows dim = 1 : memref<64x32xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.reduce max %[[S]] into %[[ROWS]] dim = 1 {nan_propagate} : memref<64x32xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.reduce max %s into %rows dim = 1 {nan_propagate} : memref<64x32xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.reduce min %[[S]] into %[[COLS]] dim = 0 : memref<64x32xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<shared>>
    tile.reduce min %s into %cols dim = 0 : memref<64x32xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<shared>>
    // CHECK: tile.reduce abssum %[[S]] into %[[COLS]] dim = 0 : memref<64x32xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<shared>>
    tile.reduce abssum %s into %cols dim = 0 : memref<64x32xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<shared>>
    // CHECK: tile.reduce absmax %[[S]] into %[[ROWS]] dim = 1 : memref<64x32xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.reduce absmax %s into %rows dim = 1 : memref<64x32xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// `clear` defaults to true and is only printed when false.
// CHECK-LABEL: func.func @reduce_clear
func.func @reduce_clear() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[S:.*]] = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: %[[M:.*]] = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.reduce max %[[S]] into %[[M]] dim = 1 {clear = false} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.reduce max %s into %m dim = 1 {clear = false} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.reduce sum %[[S]] into %[[M]] dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.reduce sum %s into %m dim = 1 {clear = true} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// 1-d sources reduce into a buffer of shape [1]; 3-d sources drop any dim;
// integer tiles; local buffers.
// CHECK-LABEL: func.func @reduce_shapes
func.func @reduce_shapes() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[V:.*]] = tile.alloc_local : memref<16xi32, #tile.scope<local>>
    %v = tile.alloc_local : memref<16xi32, #tile.scope<local>>
    // CHECK: %[[ACC:.*]] = tile.alloc_local : memref<1xi32, #tile.scope<local>>
    %acc = tile.alloc_local : memref<1xi32, #tile.scope<local>>
    // CHECK: %[[T:.*]] = tile.alloc_shared : memref<2x8x4xf16, #tile.scope<shared>>
    %t = tile.alloc_shared : memref<2x8x4xf16, #tile.scope<shared>>
    // CHECK: %[[T1:.*]] = tile.alloc_fragment : memref<2x4xf16, #tile.scope<fragment>>
    %t1 = tile.alloc_fragment : memref<2x4xf16, #tile.scope<fragment>>
    // CHECK: tile.reduce sum %[[V]] into %[[ACC]] dim = 0 : memref<16xi32, #tile.scope<local>> into memref<1xi32, #tile.scope<local>>
    tile.reduce sum %v into %acc dim = 0 : memref<16xi32, #tile.scope<local>> into memref<1xi32, #tile.scope<local>>
    // CHECK: tile.reduce max %[[V]] into %[[ACC]] dim = 0 {clear = false} : memref<16xi32, #tile.scope<local>> into memref<1xi32, #tile.scope<local>>
    tile.reduce max %v into %acc dim = 0 {clear = false} : memref<16xi32, #tile.scope<local>> into memref<1xi32, #tile.scope<local>>
    // CHECK: tile.reduce absmax %[[T]] into %[[T1]] dim = 1 : memref<2x8x4xf16, #tile.scope<shared>> into memref<2x4xf16, #tile.scope<fragment>>
    tile.reduce absmax %t into %t1 dim = 1 : memref<2x8x4xf16, #tile.scope<shared>> into memref<2x4xf16, #tile.scope<fragment>>
  }
  return
}
