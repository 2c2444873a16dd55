// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// tile.bind_storage: the placed buffers of the GPU lowering, with the
// attributes each kind of storage takes, round-trip.

#rows = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @placed
// CHECK: %[[REGS:.*]] = memref.alloca() : memref<4xf32>
// CHECK: tile.bind_storage %[[REGS]] {layout = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>, scratch_offset = 256 : i64} : memref<4xf32> to memref<4x32xf32, #tile.scope<fragment>>
// CHECK: %[[ARRAY:.*]] = memref.alloca() : memref<2x3xi32>
// CHECK: tile.bind_storage %[[ARRAY]] : memref<2x3xi32> to memref<2x3xi32, #tile.scope<local>>
// CHECK: %[[VIEW:.*]] = memref.view
// CHECK: tile.bind_storage %[[VIEW]] {planned_offset = 128 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
// CHECK: tile.bind_storage %[[VIEW]] {swizzle_chunks = 4 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
// CHECK: tile.bind_storage %{{.*}} {panel_bytes = 128 : i64, panel_rows = 64 : i64} : index to memref<64x64xf16, #tile.scope<shared>>
// CHECK: tile.bind_storage %{{.*}} {panel_bytes = 64 : i64, panel_rows = 128 : i64} : index to memref<128x32xf16, #tile.scope<shared>>
// CHECK: tile.bind_storage %{{.*}} {panel_bytes = 32 : i64, panel_rows = 64 : i64} : index to memref<64x32xf8E4M3FN, #tile.scope<shared>>
func.func @placed(%addr: index) {
  tile.kernel (%bx) in (1) threads(32) {
    %regs = memref.alloca() : memref<4xf32>
    %frag = tile.bind_storage %regs {layout = #rows, scratch_offset = 256 : i64} : memref<4xf32> to memref<4x32xf32, #tile.scope<fragment>>
    %array = memref.alloca() : memref<2x3xi32>
    %local = tile.bind_storage %array : memref<2x3xi32> to memref<2x3xi32, #tile.scope<local>>
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x32xf16, #gpu.address_space<workgroup>>
    %planned = tile.bind_storage %view {planned_offset = 128 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
    %swizzled = tile.bind_storage %view {swizzle_chunks = 4 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
    %panels = tile.bind_storage %addr {panel_bytes = 128 : i64, panel_rows = 64 : i64} : index to memref<64x64xf16, #tile.scope<shared>>
    %panels64 = tile.bind_storage %addr {panel_bytes = 64 : i64, panel_rows = 128 : i64} : index to memref<128x32xf16, #tile.scope<shared>>
    %panels32 = tile.bind_storage %addr {panel_bytes = 32 : i64, panel_rows = 64 : i64} : index to memref<64x32xf8E4M3FN, #tile.scope<shared>>
  }
  return
}

// A stage of a cp.async ring: a strided subview of the stage buffers.
// CHECK-LABEL: func.func @stage
// CHECK: tile.bind_storage %{{.*}} : memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
func.func @stage(%i: index) {
  tile.kernel (%bx) in (1) threads(32) {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %stages = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x64x32xf16, #gpu.address_space<workgroup>>
    %sub = memref.subview %stages[%i, 0, 0] [1, 64, 32] [1, 1, 1] : memref<3x64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
    %s = tile.bind_storage %sub : memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
  }
  return
}
