// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.fill on every tile scope and with float, integer and
// index values (constant and not).

// CHECK-LABEL: func.func @fill
// CHECK-SAME: (%[[X:.*]]: f32, %[[N:.*]]: i32, %[[I:.*]]: index)
func.func @fill(%x: f32, %n: i32, %i: index) {
  // CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  // CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : bf16
  %one = arith.constant 1.0 : bf16
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[M:.*]] = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    // CHECK: %[[S:.*]] = tile.alloc_shared : memref<64x64xbf16, #tile.scope<shared>>
    %s = tile.alloc_shared : memref<64x64xbf16, #tile.scope<shared>>
    // CHECK: %[[L:.*]] = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    %l = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    // CHECK: %[[LI:.*]] = tile.alloc_local : memref<1xindex, #tile.scope<local>>
    %li = tile.alloc_local : memref<1xindex, #tile.scope<local>>
    // CHECK: tile.fill %[[M]], %[[NEG_INF]] : memref<128xf32, #tile.scope<fragment>>, f32
    tile.fill %m, %neg_inf : memref<128xf32, #tile.scope<fragment>>, f32
    // CHECK: tile.fill %[[M]], %[[X]] : memref<128xf32, #tile.scope<fragment>>, f32
    tile.fill %m, %x : memref<128xf32, #tile.scope<fragment>>, f32
    // CHECK: tile.fill %[[S]], %[[ONE]] : memref<64x64xbf16, #tile.scope<shared>>, bf16
    tile.fill %s, %one : memref<64x64xbf16, #tile.scope<shared>>, bf16
    // CHECK: tile.fill %[[L]], %[[N]] : memref<4xi32, #tile.scope<local>>, i32
    tile.fill %l, %n : memref<4xi32, #tile.scope<local>>, i32
    // CHECK: tile.fill %[[LI]], %[[I]] {tag} : memref<1xindex, #tile.scope<local>>, index
    tile.fill %li, %i {tag} : memref<1xindex, #tile.scope<local>>, index
  }
  return
}
