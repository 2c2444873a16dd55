// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.alloc_shared: ranks 1 to 3, integer, index and float
// element types (including sub-byte and fp8), inside nested regions.

// CHECK-LABEL: func.func @alloc_shared
func.func @alloc_shared() {
  // CHECK: tile.kernel
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK-NEXT: %[[A:.*]] = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // CHECK-NEXT: %[[B:.*]] = tile.alloc_shared : memref<1xf32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<1xf32, #tile.scope<shared>>
    // CHECK-NEXT: %[[C:.*]] = tile.alloc_shared : memref<2x4x8xi8, #tile.scope<shared>>
    %c = tile.alloc_shared : memref<2x4x8xi8, #tile.scope<shared>>
    // CHECK-NEXT: %[[D:.*]] = tile.alloc_shared : memref<64xbf16, #tile.scope<shared>>
    %d = tile.alloc_shared : memref<64xbf16, #tile.scope<shared>>
    // CHECK-NEXT: %[[E:.*]] = tile.alloc_shared : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    // CHECK-NEXT: %[[F:.*]] = tile.alloc_shared : memref<4xindex, #tile.scope<shared>>
    %f = tile.alloc_shared : memref<4xindex, #tile.scope<shared>>
    // CHECK-NEXT: %[[G:.*]] = tile.alloc_shared : memref<32xi1, #tile.scope<shared>>
    %g = tile.alloc_shared : memref<32xi1, #tile.scope<shared>>
    // CHECK-NEXT: %[[H:.*]] = tile.alloc_shared {tag} : memref<8xi64, #tile.scope<shared>>
    %h = tile.alloc_shared {tag} : memref<8xi64, #tile.scope<shared>>
    // The results are used so that they appear as operands in the output.
    // CHECK-NEXT: tile.clear %[[A]]
    // CHECK-NEXT: tile.clear %[[B]]
    // CHECK-NEXT: tile.clear %[[C]]
    // CHECK-NEXT: tile.clear %[[D]]
    // CHECK-NEXT: tile.clear %[[E]]
    // CHECK-NEXT: tile.clear %[[F]]
    // CHECK-NEXT: tile.clear %[[G]]
    // CHECK-NEXT: tile.clear %[[H]]
    tile.clear %a : memref<128x32xf16, #tile.scope<shared>>
    tile.clear %b : memref<1xf32, #tile.scope<shared>>
    tile.clear %c : memref<2x4x8xi8, #tile.scope<shared>>
    tile.clear %d : memref<64xbf16, #tile.scope<shared>>
    tile.clear %e : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    tile.clear %f : memref<4xindex, #tile.scope<shared>>
    tile.clear %g : memref<32xi1, #tile.scope<shared>>
    tile.clear %h : memref<8xi64, #tile.scope<shared>>
  }
  return
}

// Allocations in the body of nested tile loops.
// CHECK-LABEL: func.func @alloc_shared_nested
func.func @alloc_shared_nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (%n) threads(64) {
    // CHECK: tile.pipelined
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      // CHECK-NEXT: %[[X:.*]] = tile.alloc_shared : memref<16xf32, #tile.scope<shared>>
      %x = tile.alloc_shared : memref<16xf32, #tile.scope<shared>>
      // CHECK-NEXT: tile.clear %[[X]] : memref<16xf32, #tile.scope<shared>>
      tile.clear %x : memref<16xf32, #tile.scope<shared>>
    }
    // CHECK: tile.parallel
    tile.parallel (%i) in (4) {
      // CHECK-NEXT: %[[Y:.*]] = tile.alloc_shared : memref<4xi32, #tile.scope<shared>>
      %y = tile.alloc_shared : memref<4xi32, #tile.scope<shared>>
      // CHECK-NEXT: tile.clear %[[Y]] : memref<4xi32, #tile.scope<shared>>
      tile.clear %y : memref<4xi32, #tile.scope<shared>>
    }
  }
  return
}

// The placement of tile-plan-shared: an offset on each buffer (buffers may
// share bytes), the region's size on the kernel.
// CHECK-LABEL: func.func @planned
func.func @planned() {
  // CHECK: tile.kernel (%{{.*}}) in (1) threads(128) attributes {planned_shared_bytes = 8320 : i64}
  tile.kernel (%bx) in (1) threads(128) attributes {planned_shared_bytes = 8320 : i64} {
    // CHECK-NEXT: tile.alloc_shared {offset = 0 : i64} : memref<64x64xf16, #tile.scope<shared>>
    %a = tile.alloc_shared {offset = 0 : i64} : memref<64x64xf16, #tile.scope<shared>>
    // CHECK-NEXT: tile.alloc_shared {offset = 0 : i64} : memref<16xf32, #tile.scope<shared>>
    %b = tile.alloc_shared {offset = 0 : i64} : memref<16xf32, #tile.scope<shared>>
    // CHECK-NEXT: tile.alloc_shared {offset = 8192 : i64} : memref<128xi8, #tile.scope<shared>>
    %c = tile.alloc_shared {offset = 8192 : i64} : memref<128xi8, #tile.scope<shared>>
  }
  return
}
