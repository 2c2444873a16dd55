// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.scan: both kinds, in place and out of place, regions
// with static and dynamic offsets, reverse, every scope pairing it takes.

// CHECK-LABEL: func.func @scan_shared
func.func @scan_shared(%r: index) {
  tile.kernel (%bx) in (1) threads(256) {
    // CHECK: %[[A:.*]] = tile.alloc_shared
    %a = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    // CHECK: %[[B:.*]] = tile.alloc_shared
    %b = tile.alloc_shared : memref<16x80xf16, #tile.scope<shared>>
    // CHECK: %[[C:.*]] = tile.alloc_shared
    %c = tile.alloc_shared : memref<8x40xf16, #tile.scope<shared>>
    // CHECK: tile.scan sum %[[A]][0, 0] [64, 64] to %[[A]][0, 0] [64, 64] dim = 1 : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32, #tile.scope<shared>>
    tile.scan sum %a[0, 0] [64, 64] to %a[0, 0] [64, 64] dim = 1 : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32, #tile.scope<shared>>
    // CHECK: tile.scan max %[[B]][%{{.*}}, 8] [8, 40] to %[[C]][0, 0] [8, 40] dim = 0 {reverse} : memref<16x80xf16, #tile.scope<shared>> to memref<8x40xf16, #tile.scope<shared>>
    tile.scan max %b[%r, 8] [8, 40] to %c[0, 0] [8, 40] dim = 0 {reverse} : memref<16x80xf16, #tile.scope<shared>> to memref<8x40xf16, #tile.scope<shared>>
  }
  return
}

// CHECK-LABEL: func.func @scan_fragment_local
func.func @scan_fragment_local() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<128xi32, #tile.scope<shared>>
    %f = tile.alloc_fragment : memref<128xi32, #tile.scope<fragment>>
    %l = tile.alloc_local : memref<4x8xf32, #tile.scope<local>>
    // CHECK: tile.scan sum %{{.*}}[0] [128] to %{{.*}}[0] [128] dim = 0 : memref<128xi32, #tile.scope<fragment>> to memref<128xi32, #tile.scope<fragment>>
    tile.scan sum %f[0] [128] to %f[0] [128] dim = 0 : memref<128xi32, #tile.scope<fragment>> to memref<128xi32, #tile.scope<fragment>>
    // CHECK: tile.scan max %{{.*}}[0] [128] to %{{.*}}[0] [128] dim = 0 {reverse} : memref<128xi32, #tile.scope<shared>> to memref<128xi32, #tile.scope<fragment>>
    tile.scan max %s[0] [128] to %f[0] [128] dim = 0 {reverse} : memref<128xi32, #tile.scope<shared>> to memref<128xi32, #tile.scope<fragment>>
    // CHECK: tile.scan sum %{{.*}}[0, 0] [4, 8] to %{{.*}}[0, 0] [4, 8] dim = 1 : memref<4x8xf32, #tile.scope<local>> to memref<4x8xf32, #tile.scope<local>>
    tile.scan sum %l[0, 0] [4, 8] to %l[0, 0] [4, 8] dim = 1 : memref<4x8xf32, #tile.scope<local>> to memref<4x8xf32, #tile.scope<local>>
  }
  return
}
