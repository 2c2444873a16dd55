// A valid copy between two global memrefs with a huge row: the CPU lowering
// copies rows longer than 4096 elements element by element instead of
// building one vector per row (which made convert-vector-to-llvm abort with
// "SmallVector unable to grow", or take minutes and gigabytes).
// RUN: tile-opt --tile-to-cpu %s | FileCheck %s

// CHECK: llvm.func @huge_row
// CHECK-NOT: vector<9223372036854775807
func.func @huge_row(%A: memref<?x?xf32>, %B: memref<?x?xf32>) {
  tile.kernel (%bx) in (1) threads(1) {
    tile.copy %A[0, 0] [1, 9223372036854775807] to %B[0, 0] [1, 9223372036854775807] : memref<?x?xf32> to memref<?x?xf32>
  }
  return
}
