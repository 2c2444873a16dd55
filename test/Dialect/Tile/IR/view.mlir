// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.view: another element type (narrower and wider),
// another shape, a view of a view.

// CHECK-LABEL: func.func @views
func.func @views() {
  %cst = arith.constant 1.0 : f32
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[A:.*]] = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    // CHECK: %[[B:.*]] = tile.view %[[A]] : memref<64x64xf32, #tile.scope<shared>> to memref<64x128xbf16, #tile.scope<shared>>
    %b = tile.view %a : memref<64x64xf32, #tile.scope<shared>> to memref<64x128xbf16, #tile.scope<shared>>
    // CHECK: tile.view %[[B]] : memref<64x128xbf16, #tile.scope<shared>> to memref<2x32x64xf32, #tile.scope<shared>>
    %c = tile.view %b : memref<64x128xbf16, #tile.scope<shared>> to memref<2x32x64xf32, #tile.scope<shared>>
    // CHECK: tile.view %[[A]] : memref<64x64xf32, #tile.scope<shared>> to memref<16384xi8, #tile.scope<shared>>
    %d = tile.view %a : memref<64x64xf32, #tile.scope<shared>> to memref<16384xi8, #tile.scope<shared>>
    tile.fill %c, %cst : memref<2x32x64xf32, #tile.scope<shared>>, f32
    tile.clear %d : memref<16384xi8, #tile.scope<shared>>
  }
  return
}
