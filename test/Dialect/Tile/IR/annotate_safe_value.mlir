// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.annotate_safe_value on float and integer tensors.

// CHECK-LABEL: func.func @safe_values
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<128xi32>)
func.func @safe_values(%A: memref<?x?xf32>, %B: memref<128xi32>) {
  // CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: tile.annotate_safe_value %[[A]], %[[NINF]] : memref<?x?xf32>, f32
    tile.annotate_safe_value %A, %ninf : memref<?x?xf32>, f32
    // CHECK: %[[M1:.*]] = arith.constant -1 : i32
    %m1 = arith.constant -1 : i32
    // CHECK: tile.annotate_safe_value %[[B]], %[[M1]] : memref<128xi32>, i32
    tile.annotate_safe_value %B, %m1 : memref<128xi32>, i32
  }
  return
}
