// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.alloc_local: ranks 1 to 3, integer, index and float
// element types (including sub-byte and fp8), inside nested regions.

// CHECK-LABEL: func.func @alloc_local
func.func @alloc_local() {
  // CHECK: tile.kernel
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK-NEXT: %[[A:.*]] = tile.alloc_local : memref<128x32xf16, #tile.scope<local>>
    %a = tile.alloc_local : memref<128x32xf16, #tile.scope<local>>
    // CHECK-NEXT: %[[B:.*]] = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    %b = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    // CHECK-NEXT: %[[C:.*]] = tile.alloc_local : memref<2x4x8xi8, #tile.scope<local>>
    %c = tile.alloc_local : memref<2x4x8xi8, #tile.scope<local>>
    // CHECK-NEXT: %[[D:.*]] = tile.alloc_local : memref<64xbf16, #tile.scope<local>>
    %d = tile.alloc_local : memref<64xbf16, #tile.scope<local>>
    // CHECK-NEXT: %[[E:.*]] = tile.alloc_local : memref<16x16xf8E4M3FN, #tile.scope<local>>
    %e = tile.alloc_local : memref<16x16xf8E4M3FN, #tile.scope<local>>
    // CHECK-NEXT: %[[F:.*]] = tile.alloc_local : memref<4xindex, #tile.scope<local>>
    %f = tile.alloc_local : memref<4xindex, #tile.scope<local>>
    // CHECK-NEXT: %[[G:.*]] = tile.alloc_local : memref<32xi1, #tile.scope<local>>
    %g = tile.alloc_local : memref<32xi1, #tile.scope<local>>
    // CHECK-NEXT: %[[H:.*]] = tile.alloc_local {tag} : memref<8xi64, #tile.scope<local>>
    %h = tile.alloc_local {tag} : memref<8xi64, #tile.scope<local>>
    // The results are used so that they appear as operands in the output.
    // CHECK-NEXT: tile.clear %[[A]]
    // CHECK-NEXT: tile.clear %[[B]]
    // CHECK-NEXT: tile.clear %[[C]]
    // CHECK-NEXT: tile.clear %[[D]]
    // CHECK-NEXT: tile.clear %[[E]]
    // CHECK-NEXT: tile.clear %[[F]]
    // CHECK-NEXT: tile.clear %[[G]]
    // CHECK-NEXT: tile.clear %[[H]]
    tile.clear %a : memref<128x32xf16, #tile.scope<local>>
    tile.clear %b : memref<1xf32, #tile.scope<local>>
    tile.clear %c : memref<2x4x8xi8, #tile.scope<local>>
    tile.clear %d : memref<64xbf16, #tile.scope<local>>
    tile.clear %e : memref<16x16xf8E4M3FN, #tile.scope<local>>
    tile.clear %f : memref<4xindex, #tile.scope<local>>
    tile.clear %g : memref<32xi1, #tile.scope<local>>
    tile.clear %h : memref<8xi64, #tile.scope<local>>
  }
  return
}

// Allocations in the body of nested tile loops.
// CHECK-LABEL: func.func @alloc_local_nested
func.func @alloc_local_nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (%n) threads(64) {
    // CHECK: tile.pipelined
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      // CHECK-NEXT: %[[X:.*]] = tile.alloc_local : memref<16xf32, #tile.scope<local>>
      %x = tile.alloc_local : memref<16xf32, #tile.scope<local>>
      // CHECK-NEXT: tile.clear %[[X]] : memref<16xf32, #tile.scope<local>>
      tile.clear %x : memref<16xf32, #tile.scope<local>>
    }
    // CHECK: tile.parallel
    tile.parallel (%i) in (4) {
      // CHECK-NEXT: %[[Y:.*]] = tile.alloc_local : memref<4xi32, #tile.scope<local>>
      %y = tile.alloc_local : memref<4xi32, #tile.scope<local>>
      // CHECK-NEXT: tile.clear %[[Y]] : memref<4xi32, #tile.scope<local>>
      tile.clear %y : memref<4xi32, #tile.scope<local>>
    }
  }
  return
}
