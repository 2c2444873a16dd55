// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.alloc_fragment: ranks 1 to 3, integer, index and float
// element types (including sub-byte and fp8), inside nested regions.

// CHECK-LABEL: func.func @alloc_fragment
func.func @alloc_fragment() {
  // CHECK: tile.kernel
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK-NEXT: %[[A:.*]] = tile.alloc_fragment : memref<128x32xf16, #tile.scope<fragment>>
    %a = tile.alloc_fragment : memref<128x32xf16, #tile.scope<fragment>>
    // CHECK-NEXT: %[[B:.*]] = tile.alloc_fragment : memref<1xf32, #tile.scope<fragment>>
    %b = tile.alloc_fragment : memref<1xf32, #tile.scope<fragment>>
    // CHECK-NEXT: %[[C:.*]] = tile.alloc_fragment : memref<2x4x8xi8, #tile.scope<fragment>>
    %c = tile.alloc_fragment : memref<2x4x8xi8, #tile.scope<fragment>>
    // CHECK-NEXT: %[[D:.*]] = tile.alloc_fragment : memref<64xbf16, #tile.scope<fragment>>
    %d = tile.alloc_fragment : memref<64xbf16, #tile.scope<fragment>>
    // CHECK-NEXT: %[[E:.*]] = tile.alloc_fragment : memref<16x16xf8E4M3FN, #tile.scope<fragment>>
    %e = tile.alloc_fragment : memref<16x16xf8E4M3FN, #tile.scope<fragment>>
    // CHECK-NEXT: %[[F:.*]] = tile.alloc_fragment : memref<4xindex, #tile.scope<fragment>>
    %f = tile.alloc_fragment : memref<4xindex, #tile.scope<fragment>>
    // CHECK-NEXT: %[[G:.*]] = tile.alloc_fragment : memref<32xi1, #tile.scope<fragment>>
    %g = tile.alloc_fragment : memref<32xi1, #tile.scope<fragment>>
    // CHECK-NEXT: %[[H:.*]] = tile.alloc_fragment {tag} : memref<8xi64, #tile.scope<fragment>>
    %h = tile.alloc_fragment {tag} : memref<8xi64, #tile.scope<fragment>>
    // The results are used so that they appear as operands in the output.
    // CHECK-NEXT: tile.clear %[[A]]
    // CHECK-NEXT: tile.clear %[[B]]
    // CHECK-NEXT: tile.clear %[[C]]
    // CHECK-NEXT: tile.clear %[[D]]
    // CHECK-NEXT: tile.clear %[[E]]
    // CHECK-NEXT: tile.clear %[[F]]
    // CHECK-NEXT: tile.clear %[[G]]
    // CHECK-NEXT: tile.clear %[[H]]
    tile.clear %a : memref<128x32xf16, #tile.scope<fragment>>
    tile.clear %b : memref<1xf32, #tile.scope<fragment>>
    tile.clear %c : memref<2x4x8xi8, #tile.scope<fragment>>
    tile.clear %d : memref<64xbf16, #tile.scope<fragment>>
    tile.clear %e : memref<16x16xf8E4M3FN, #tile.scope<fragment>>
    tile.clear %f : memref<4xindex, #tile.scope<fragment>>
    tile.clear %g : memref<32xi1, #tile.scope<fragment>>
    tile.clear %h : memref<8xi64, #tile.scope<fragment>>
  }
  return
}

// Allocations in the body of nested tile loops.
// CHECK-LABEL: func.func @alloc_fragment_nested
func.func @alloc_fragment_nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (%n) threads(64) {
    // CHECK: tile.pipelined
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      // CHECK-NEXT: %[[X:.*]] = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
      %x = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
      // CHECK-NEXT: tile.clear %[[X]] : memref<16xf32, #tile.scope<fragment>>
      tile.clear %x : memref<16xf32, #tile.scope<fragment>>
    }
    // CHECK: tile.parallel
    tile.parallel (%i) in (4) {
      // CHECK-NEXT: %[[Y:.*]] = tile.alloc_fragment : memref<4xi32, #tile.scope<fragment>>
      %y = tile.alloc_fragment : memref<4xi32, #tile.scope<fragment>>
      // CHECK-NEXT: tile.clear %[[Y]] : memref<4xi32, #tile.scope<fragment>>
      tile.clear %y : memref<4xi32, #tile.scope<fragment>>
    }
  }
  return
}
