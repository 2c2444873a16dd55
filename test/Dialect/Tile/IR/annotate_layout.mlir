// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.annotate_layout: swizzles on shared buffers and
// fragment layouts on fragment buffers.

// CHECK-LABEL: func.func @swizzle
func.func @swizzle() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[A:.*]] = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    // CHECK: %[[B:.*]] = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.annotate_layout %[[A]] layout(#tile.swizzle<3, 4, 3>) : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %a layout(#tile.swizzle<3, 4, 3>) : memref<128x64xf16, #tile.scope<shared>>
    // CHECK: tile.annotate_layout %[[B]] layout(#tile.swizzle<2, 4, 3>) : memref<64x32xf16, #tile.scope<shared>>
    tile.annotate_layout %b layout(#tile.swizzle<2, 4, 3>) : memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.annotate_layout %[[B]] layout(#tile.swizzle<1, 4, 3>) {tag} : memref<64x32xf16, #tile.scope<shared>>
    tile.annotate_layout %b layout(#tile.swizzle<1, 4, 3>) {tag} : memref<64x32xf16, #tile.scope<shared>>
  }
  return
}

// CHECK-LABEL: func.func @fragment
func.func @fragment() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[C:.*]] = tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
    %c = tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
    // CHECK: %[[R:.*]] = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %r = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: %[[P:.*]] = tile.alloc_fragment : memref<2x64xf16, #tile.scope<fragment>>
    %p = tile.alloc_fragment : memref<2x64xf16, #tile.scope<fragment>>
    // The C fragment of one m16n8 mma.sync held by one warp.
    // CHECK: tile.annotate_layout %[[C]] layout(#tile.fragment<[16, 8], threads = 32, (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2, d1 mod 2 + (d0 floordiv 8) * 2)>) : memref<16x8xf32, #tile.scope<fragment>>
    tile.annotate_layout %c layout(#tile.fragment<[16, 8], threads = 32, (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (d1 mod 2) + (d0 floordiv 8) * 2)>) : memref<16x8xf32, #tile.scope<fragment>>
    // One element per thread.
    // CHECK: tile.annotate_layout %[[R]] layout(#tile.fragment<[64], threads = 64, (d0) -> (d0, 0)>) : memref<64xf32, #tile.scope<fragment>>
    tile.annotate_layout %r layout(#tile.fragment<[64], threads = 64, (d0) -> (d0, 0)>) : memref<64xf32, #tile.scope<fragment>>
    // Held twice over by 128 threads.
    // CHECK: tile.annotate_layout %[[P]] layout(#tile.fragment<[2, 64], threads = 128, (d0, d1) -> (d1, d0), replicate = 2>) : memref<2x64xf16, #tile.scope<fragment>>
    tile.annotate_layout %p layout(#tile.fragment<[2, 64], threads = 128, (d0, d1) -> (d1, d0), replicate = 2>) : memref<2x64xf16, #tile.scope<fragment>>
  }
  return
}

// A #tile.layout on a global tensor: TileLang's T.Layout on a kernel
// parameter (here the transpose of a 64x16 accumulator).
// CHECK-LABEL: func.func @tensor_layout
// CHECK-SAME: (%[[DQ:.*]]: memref<64x16xf32>)
func.func @tensor_layout(%dq: memref<64x16xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: tile.annotate_layout %[[DQ]] layout(#tile.layout<[64, 16] -> [16, 64], (d0, d1) -> (d1, d0)>) : memref<64x16xf32>
    tile.annotate_layout %dq layout(#tile.layout<[64, 16] -> [16, 64], (d0, d1) -> (d1, d0)>) : memref<64x16xf32>
    // CHECK: tile.annotate_layout %[[DQ]] layout(#tile.layout<[64, 16] -> [8, 2, 2, 32], (d0, d1) -> (d0 floordiv 8, d1 floordiv 8, d1 mod 2, (d0 mod 8) * 4 + (d1 mod 8) floordiv 2)>) : memref<64x16xf32>
    tile.annotate_layout %dq layout(#tile.layout<[64, 16] -> [8, 2, 2, 32], (d0, d1) -> (d0 floordiv 8, d1 floordiv 8, d1 mod 2, (d0 mod 8) * 4 + (d1 mod 8) floordiv 2)>) : memref<64x16xf32>
  }
  return
}
