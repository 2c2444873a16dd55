// One row a block over 128 threads (the shape of TileLang's online softmax
// and RMS norm examples): tile-infer-layouts spreads the row over all four
// warps, 8 consecutive f16 (16 bytes) a lane at a time. The whole pipeline:
// - the copy in loads whole 16-byte vectors (ld.global.v4.b32: the f16 run
//   is read as 32-bit words, which LLVM keeps as one load), beside the
//   element-by-element path for tiles at the tensor's edge;
// - the row maximum is a butterfly of warp shuffles, then the four warps'
//   partial results meet in shared memory;
// - the copy out stores 16-byte vectors.
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_90a format=isa' | FileCheck %s
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_80 format=isa' | FileCheck %s
// CHECK: gpu.binary
// CHECK-COUNT-8: ld.global.v4.b32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK: bar.sync
// CHECK: st.global.v4.b32
func.func @row_max_sub(%x: memref<?x8192xf16>, %y: memref<?x8192xf16>) {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x8192xf16>
  tile.kernel (%bx) in (%m) threads(128) {
    %xf = tile.alloc_fragment : memref<1x8192xf16, #tile.scope<fragment>>
    %mx = tile.alloc_fragment : memref<1xf16, #tile.scope<fragment>>
    tile.copy %x[%bx, 0] [1, 8192] to %xf[0, 0] [1, 8192] : memref<?x8192xf16> to memref<1x8192xf16, #tile.scope<fragment>>
    tile.reduce max %xf into %mx dim = 1 : memref<1x8192xf16, #tile.scope<fragment>> into memref<1xf16, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (1, 8192) {
      %v = memref.load %xf[%i, %j] : memref<1x8192xf16, #tile.scope<fragment>>
      %r = memref.load %mx[%i] : memref<1xf16, #tile.scope<fragment>>
      %d = arith.subf %v, %r : f16
      memref.store %d, %xf[%i, %j] : memref<1x8192xf16, #tile.scope<fragment>>
    }
    tile.copy %xf[0, 0] [1, 8192] to %y[%bx, 0] [1, 8192] : memref<1x8192xf16, #tile.scope<fragment>> to memref<?x8192xf16>
  }
  return
}
