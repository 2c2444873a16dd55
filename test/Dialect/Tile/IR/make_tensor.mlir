// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.make_tensor: an address given as an argument with
// dynamic sizes, and one read from a table of addresses with a static shape.

// CHECK-LABEL: func.func @from_argument
func.func @from_argument(%p: i64, %m: index, %k: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[A:.*]] = tile.make_tensor %{{.*}}(%{{.*}}, %{{.*}}) : memref<?x?xf16>
    %a = tile.make_tensor %p(%m, %k) : memref<?x?xf16>
    %s = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.copy %[[A]]
    tile.copy %a[0, 0] [64, 32] to %s[0, 0] [64, 32] : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
  }
  return
}

// CHECK-LABEL: func.func @from_table
func.func @from_table(%table: memref<4xi64>, %out: memref<4x256xf32>) {
  tile.kernel (%bx) in (4) threads(128) {
    %addr = memref.load %table[%bx] : memref<4xi64>
    // CHECK: tile.make_tensor %{{.*}} : memref<256xf32>
    %t = tile.make_tensor %addr : memref<256xf32>
    %c0 = arith.constant 0 : index
    %x = memref.load %t[%c0] : memref<256xf32>
    memref.store %x, %out[%bx, %c0] : memref<4x256xf32>
  }
  return
}
