// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.finalize_reducer: each kind, with and without a seed.

// CHECK-LABEL: func.func @finalize_kinds
func.func @finalize_kinds(%s: f32, %i: i32) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[R:.*]] = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    %r = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    // CHECK: tile.finalize_reducer sum %[[R]] : memref<64xf32, #tile.scope<local>>
    tile.finalize_reducer sum %r : memref<64xf32, #tile.scope<local>>
    // CHECK: tile.finalize_reducer max %[[R]] : memref<64xf32, #tile.scope<local>>
    tile.finalize_reducer max %r : memref<64xf32, #tile.scope<local>>
    // CHECK: tile.finalize_reducer min %[[R]] seed %{{.*}} : memref<64xf32, #tile.scope<local>>, f32
    tile.finalize_reducer min %r seed %s : memref<64xf32, #tile.scope<local>>, f32
    // CHECK: %[[Q:.*]] = tile.alloc_local : memref<4x8xi32, #tile.scope<local>>
    %q = tile.alloc_local : memref<4x8xi32, #tile.scope<local>>
    // CHECK: tile.finalize_reducer sum %[[Q]] seed %{{.*}} : memref<4x8xi32, #tile.scope<local>>, i32
    tile.finalize_reducer sum %q seed %i : memref<4x8xi32, #tile.scope<local>>, i32
  }
  return
}
