// The whole NVIDIA pipeline on a reducer (TileLang's gemv with
// T.alloc_reducer). Updated at the loop's rows, the reducer is a fragment of
// their layout (tile-infer-layouts: the 64 x 128 tile row-split, a row on
// the 32 lanes of a warp, 16 rows a thread): each thread sums its iterations
// into its 16 registers, nothing in local memory; tile.finalize_reducer
// combines the lanes of each row by a butterfly of warp shuffles (5 x 16
// shfl.sync.bfly), with no warp needing another's (no barrier after them);
// the copy out stores each row once, from its owner.
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_80 format=isa' | FileCheck %s
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_90a format=isa' | FileCheck %s
// CHECK: gpu.binary
// CHECK-NOT: .local
// CHECK-COUNT-80: shfl.sync.bfly.b32
// CHECK-NOT: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK: st.global.b32
func.func @gemv(%a: memref<?x128xf32>, %x: memref<128xf32>, %o: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %m = memref.dim %a, %c0 : memref<?x128xf32>
  %c64 = arith.constant 64 : index
  %c63 = arith.constant 63 : index
  %t = arith.addi %m, %c63 : index
  %blocks = arith.divui %t, %c64 : index
  tile.kernel (%bx) in (%blocks) threads(128) {
    %acc = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    tile.clear %acc : memref<64xf32, #tile.scope<local>>
    %row = arith.muli %bx, %c64 : index
    %af = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    tile.copy %a[%row, 0] [64, 128] to %af[0, 0] [64, 128] : memref<?x128xf32> to memref<64x128xf32, #tile.scope<fragment>>
    %xf = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    tile.copy %x[0] [128] to %xf[0] [128] : memref<128xf32> to memref<128xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 128) {
      %v = memref.load %af[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      %w = memref.load %xf[%j] : memref<128xf32, #tile.scope<fragment>>
      %p = arith.mulf %v, %w : f32
      %r = memref.load %acc[%i] : memref<64xf32, #tile.scope<local>>
      %s = arith.addf %r, %p : f32
      memref.store %s, %acc[%i] : memref<64xf32, #tile.scope<local>>
      tile.yield
    }
    tile.finalize_reducer sum %acc : memref<64xf32, #tile.scope<local>>
    tile.copy %acc[0] [64] to %o[%row] [64] : memref<64xf32, #tile.scope<local>> to memref<?xf32>
  }
  return
}
