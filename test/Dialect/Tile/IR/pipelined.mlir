// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.pipelined: bounds, num_stages, and the order / stage
// attributes that pin the schedule.

// CHECK-LABEL: func.func @pipelined
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[B:.*]]: memref<?x?xf16>, %[[LB:.*]]: index, %[[UB:.*]]: index, %[[ST:.*]]: index)
func.func @pipelined(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %lb: index, %ub: index, %st: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[AS:.*]] = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK: %[[BS:.*]] = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    // CHECK: %[[CF:.*]] = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: tile.pipelined %[[K:.*]] = %[[LB]] to %[[UB]] step %[[ST]] num_stages = 3 {
    tile.pipelined %k = %lb to %ub step %st num_stages = 3 {
      // CHECK-NEXT: tile.copy %[[A]][0, %[[K]]] to %[[AS]]
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      // CHECK-NEXT: tile.copy %[[B]][%[[K]], 0] to %[[BS]]
      tile.copy %B[%k, 0] to %Bs : memref<?x?xf16> to memref<32x64xf16, #tile.scope<shared>>
      // CHECK-NEXT: tile.gemm %[[AS]], %[[BS]], %[[CF]]
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    // CHECK-NEXT: }
    }
    // order and stage have one entry per op of the body (the terminator
    // excluded).
    // CHECK: tile.pipelined %[[K2:.*]] = %[[LB]] to %[[UB]] step %[[ST]] num_stages = 2 attributes {order = array<i64: 1, 0, 2>, stage = array<i64: 0, 0, 1>} {
    tile.pipelined %k = %lb to %ub step %st num_stages = 2 attributes {order = array<i64: 1, 0, 2>, stage = array<i64: 0, 0, 1>} {
      // CHECK-NEXT: tile.copy %[[A]][0, %[[K2]]] to %[[AS]]
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      // CHECK-NEXT: tile.copy %[[B]][%[[K2]], 0] to %[[BS]]
      tile.copy %B[%k, 0] to %Bs : memref<?x?xf16> to memref<32x64xf16, #tile.scope<shared>>
      // CHECK-NEXT: tile.gemm
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    // Only one of the two.
    // CHECK: tile.pipelined %{{.*}} num_stages = 4 attributes {stage = array<i64: 0, 3>} {
    tile.pipelined %k = %lb to %ub step %st num_stages = 4 attributes {stage = array<i64: 0, 3>} {
      tile.copy %A[0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    // CHECK: tile.pipelined %{{.*}} num_stages = 1 attributes {order = array<i64: 0>} {
    tile.pipelined %k = %lb to %ub step %st num_stages = 1 attributes {order = array<i64: 0>} {
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
  }
  return
}

// Constant bounds, an empty body, and nested pipelined loops.
// CHECK-LABEL: func.func @pipelined_constant_bounds
func.func @pipelined_constant_bounds(%n: index) {
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
  // CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  tile.kernel (%bx) in (%n) threads(64) {
    // CHECK: tile.pipelined %[[I:.*]] = %[[C0]] to %[[C16]] step %[[C4]] num_stages = 2 {
    tile.pipelined %i = %c0 to %c16 step %c4 num_stages = 2 {
      // CHECK-NEXT: tile.pipelined %{{.*}} = %[[I]] to %[[C16]] step %[[C4]] num_stages = 1 {
      // CHECK-NEXT: }
      tile.pipelined %j = %i to %c16 step %c4 num_stages = 1 {
      }
    // CHECK-NEXT: }
    }
  }
  return
}
