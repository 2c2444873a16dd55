// RUN: tile-opt %s -canonicalize | FileCheck %s
// RUN: tile-opt %s -loop-invariant-code-motion | FileCheck %s

// `order` and `stage` of tile.pipelined index the body's ops with side
// effects only, so generic transformations that hoist or erase pure ops
// (canonicalize hoists constants, LICM hoists invariant arithmetic) keep
// the lists valid.

// CHECK-LABEL: func.func @constant_in_body
// CHECK: tile.pipelined {{.*}} attributes {order = array<i64: 1, 0>, stage = array<i64: 0, 1>}
// CHECK: tile.copy
// CHECK-NEXT: tile.clear
func.func @constant_in_body(%A: memref<?x?xf16>, %n: index, %x: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (%n) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 attributes {order = array<i64: 1, 0>, stage = array<i64: 0, 1>} {
      %c32 = arith.constant 32 : index
      %m = arith.muli %x, %c32 : index
      tile.copy %A[%m, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.clear %As : memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}
