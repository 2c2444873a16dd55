// RUN: tile-opt %s -loop-invariant-code-motion | FileCheck %s

// tile.pipelined and tile.parallel implement LoopLikeOpInterface: generic
// loop transformations such as LICM see their bodies and induction
// variables. Pure loop-invariant ops are hoisted; ops that depend on an
// induction variable, and ops with memory effects, stay.

// CHECK-LABEL: func.func @licm
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[N:.*]]: index, %[[X:.*]]: index, %[[Y:.*]]: index)
func.func @licm(%A: memref<?x?xf16>, %n: index, %x: index, %y: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: tile.kernel (%[[BX:.*]]) in (%[[N]]) threads(128) {
  tile.kernel (%bx) in (%n) threads(128) {
    // CHECK-NEXT: %[[AS:.*]] = tile.alloc_shared
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK-NEXT: %[[V:.*]] = tile.alloc_fragment
    %v = tile.alloc_fragment : memref<16xindex, #tile.scope<fragment>>
    // Hoisted out of tile.pipelined: invariant in %k.
    // CHECK-NEXT: %[[INV:.*]] = arith.muli %[[X]], %[[Y]] : index
    // CHECK-NEXT: %[[M0:.*]] = arith.muli %[[BX]], %[[INV]] : index
    // Hoisted out of tile.parallel, then out of tile.pipelined.
    // CHECK-NEXT: %[[BASE:.*]] = arith.addi %[[BX]], %[[X]] : index
    // CHECK-NEXT: tile.pipelined %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} num_stages = 2 {
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      %inv = arith.muli %x, %y : index
      %m0 = arith.muli %bx, %inv : index
      // CHECK-NEXT: %[[K0:.*]] = arith.addi %[[K]], %[[INV]] : index
      %k0 = arith.addi %k, %inv : index
      // CHECK-NEXT: tile.copy %[[A]][%[[M0]], %[[K0]]] to %[[AS]]
      tile.copy %A[%m0, %k0] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      // CHECK-NEXT: tile.parallel (%[[I:.*]]) in (16) {
      tile.parallel (%i) in (16) {
        %base = arith.addi %bx, %x : index
        // CHECK-NEXT: %[[E:.*]] = arith.addi %[[BASE]], %[[I]] : index
        %e = arith.addi %base, %i : index
        // CHECK-NEXT: memref.store %[[E]], %[[V]][%[[I]]]
        memref.store %e, %v[%i] : memref<16xindex, #tile.scope<fragment>>
      // CHECK-NEXT: }
      }
    // CHECK-NEXT: }
    }
  }
  return
}

// Nothing is hoisted out of tile.kernel itself: it is not a loop.
// CHECK-LABEL: func.func @kernel_is_not_a_loop
func.func @kernel_is_not_a_loop(%out: memref<?xindex>, %x: index) {
  // CHECK: tile.kernel
  // CHECK-NEXT: arith.muli
  tile.kernel (%bx) in (4) threads(32) {
    %inv = arith.muli %x, %x : index
    %l = tile.alloc_local : memref<1xindex, #tile.scope<local>>
    tile.fill %l, %inv : memref<1xindex, #tile.scope<local>>, index
    tile.copy %l to %out[%bx] : memref<1xindex, #tile.scope<local>> to memref<?xindex>
  }
  return
}
