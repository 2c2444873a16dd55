// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.clear on every tile scope.

// CHECK-LABEL: func.func @clear
func.func @clear() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[C:.*]] = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    // CHECK: %[[S:.*]] = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %s = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK: %[[L:.*]] = tile.alloc_local : memref<8xi32, #tile.scope<local>>
    %l = tile.alloc_local : memref<8xi32, #tile.scope<local>>
    // CHECK: %[[F8:.*]] = tile.alloc_shared : memref<2x2x2xf8E5M2, #tile.scope<shared>>
    %f8 = tile.alloc_shared : memref<2x2x2xf8E5M2, #tile.scope<shared>>
    // CHECK: tile.clear %[[C]] : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %c : memref<128x128xf32, #tile.scope<fragment>>
    // CHECK: tile.clear %[[S]] : memref<64x32xf16, #tile.scope<shared>>
    tile.clear %s : memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.clear %[[L]] : memref<8xi32, #tile.scope<local>>
    tile.clear %l : memref<8xi32, #tile.scope<local>>
    // CHECK: tile.clear %[[F8]] {tag = 1 : i64} : memref<2x2x2xf8E5M2, #tile.scope<shared>>
    tile.clear %f8 {tag = 1} : memref<2x2x2xf8E5M2, #tile.scope<shared>>
  }
  return
}
