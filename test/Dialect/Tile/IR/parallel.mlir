// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.parallel: one to three dimensions, bodies with upstream
// ops, nesting in tile.pipelined, extra attributes.

// CHECK-LABEL: func.func @parallel_2d
func.func @parallel_2d() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[S:.*]] = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    // CHECK: %[[M:.*]] = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (64, 32) {
    tile.parallel (%i, %j) in (64, 32) {
      // CHECK-NEXT: %[[X:.*]] = memref.load %[[S]][%[[I]], %[[J]]]
      %x = memref.load %s[%i, %j] : memref<64x32xf32, #tile.scope<fragment>>
      // CHECK-NEXT: %[[Y:.*]] = memref.load %[[M]][%[[I]]]
      %y = memref.load %m[%i] : memref<64xf32, #tile.scope<fragment>>
      // CHECK-NEXT: %[[D:.*]] = arith.subf %[[X]], %[[Y]] : f32
      %d = arith.subf %x, %y : f32
      // CHECK-NEXT: memref.store %[[D]], %[[S]][%[[I]], %[[J]]]
      memref.store %d, %s[%i, %j] : memref<64x32xf32, #tile.scope<fragment>>
    // CHECK-NEXT: }
    }
  }
  return
}

// CHECK-LABEL: func.func @parallel_ranks
func.func @parallel_ranks() {
  tile.kernel (%bx) in (1) threads(128) {
    %v = tile.alloc_local : memref<8xi32, #tile.scope<local>>
    %t = tile.alloc_shared : memref<2x4x8xi32, #tile.scope<shared>>
    // CHECK: tile.parallel (%[[I:.*]]) in (8) {
    tile.parallel (%i) in (8) {
      // CHECK-NEXT: %[[C:.*]] = arith.index_cast %[[I]] : index to i32
      %c = arith.index_cast %i : index to i32
      // CHECK-NEXT: memref.store %[[C]], %{{.*}}[%[[I]]]
      memref.store %c, %v[%i] : memref<8xi32, #tile.scope<local>>
    }
    // CHECK: tile.parallel (%[[A:.*]], %[[B:.*]], %[[C:.*]]) in (2, 4, 8) {
    tile.parallel (%a, %b, %c) in (2, 4, 8) {
      // CHECK-NEXT: memref.load %{{.*}}[%[[C]]]
      %x = memref.load %v[%c] : memref<8xi32, #tile.scope<local>>
      // CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[A]], %[[B]], %[[C]]]
      memref.store %x, %t[%a, %b, %c] : memref<2x4x8xi32, #tile.scope<shared>>
    }
    // An empty body and extra attributes.
    // CHECK: tile.parallel (%{{.*}}) in (1) attributes {vectorize = 4 : i64} {
    // CHECK-NEXT: }
    tile.parallel (%i) in (1) attributes {vectorize = 4 : i64} {
    }
  }
  return
}

// tile.parallel inside tile.pipelined, using the outer induction variable.
// CHECK-LABEL: func.func @parallel_in_pipelined
func.func @parallel_in_pipelined(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (1) threads(128) {
    %v = tile.alloc_fragment : memref<16xindex, #tile.scope<fragment>>
    // CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} num_stages = 2 {
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      // CHECK-NEXT: tile.parallel (%[[I:.*]]) in (16) {
      tile.parallel (%i) in (16) {
        // CHECK-NEXT: %[[S:.*]] = arith.addi %[[K]], %[[I]] : index
        %s = arith.addi %k, %i : index
        // CHECK-NEXT: memref.store %[[S]]
        memref.store %s, %v[%i] : memref<16xindex, #tile.scope<fragment>>
      }
    }
  }
  return
}
