// tile-software-pipeline on placed buffers (tile-place-buffers' output).
// RUN: rm -rf %t && split-file %s %t
//
// sm_80: a pipelined loop whose copy from global memory fills a whole
// shared buffer that the loop only reads gets num_stages stage buffers
// after the bytes the kernel already placed (tile.shared_bytes, 0 here),
// filled by cp.async num_stages - 1 iterations ahead; the loop reads a
// subview of its stage and keeps num_stages = 1.
// RUN: tile-opt %t/cp-async.mlir --tile-software-pipeline=target=sm_80 --verify-roundtrip | FileCheck %s
//
// sm_90a, the GEMM example: a TMA ring of 128-byte-swizzled panel buffers
// with mbarriers and a producer warpgroup.
// RUN: tile-opt %S/../../../../examples/gemm/gemm_sm90.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --verify-roundtrip | FileCheck %s --check-prefix=TMA
// The same loop with one stage: a ring of one slot without a producer
// warpgroup (it could not load ahead, and its registers would halve the
// blocks an SM holds): the block's threads issue the loads, one full
// barrier, each gemm waiting for its wgmmas (no tile.wgmma_pending); the
// epilogue's shared tile is the stage buffers.
// RUN: sed -e 's/num_stages = 4/num_stages = 1/' %S/../../../../examples/gemm/gemm_sm90.mlir | tile-opt --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --verify-roundtrip | FileCheck %s --check-prefix=ONE
//
// Buffers that are not placed yet.
// RUN: tile-opt %t/unplaced.mlir --tile-software-pipeline=target=sm_80 -verify-diagnostics

//--- cp-async.mlir

// CHECK-LABEL: func.func @cp_async
// CHECK: tile.kernel {{.*}} attributes {tile.shared_bytes = 12288 : i64} {
// CHECK: %[[STAGES:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x64x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %{{.*}}, %[[STAGES]]
// CHECK: nvgpu.device_async_create_group
// CHECK: tile.pipelined %{{.*}} = {{.*}} num_stages = 1 {
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK: %[[STAGE:.*]] = memref.subview %[[STAGES]]
// CHECK: %[[VIEW:.*]] = tile.bind_storage %[[STAGE]] : memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
// CHECK-NOT: tile.copy %{{.*}} to %{{.*}} : memref<?x?xf16> to
// CHECK: tile.copy %[[VIEW]] to %{{.*}} : memref<64x32xf16, #tile.scope<shared>> to memref<?x?xf16>
// CHECK: }
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
func.func @cp_async(%A: memref<?x?xf16>, %B: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  tile.kernel (%bx) in (1) threads(128) {
    %z = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %smem[%z][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x32xf16, #gpu.address_space<workgroup>>
    %As = tile.bind_storage %view {planned_offset = 0 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %c4 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %k0] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.copy %As to %B[%c0, %k0] : memref<64x32xf16, #tile.scope<shared>> to memref<?x?xf16>
    }
  }
  return
}

// ONE-LABEL: func.func @gemm
// ONE-SAME: tile.tma = {box = array<i64: 128, 64>, param = 0 : i64, swizzle = 128 : i64}
// ONE: tile.kernel {{.*}} threads(256) attributes {planned_shared_bytes = 49152 : i64, tile.shared_bytes = 50184 : i64} {
// ONE-NOT: tile.producer_threads
// ONE-COUNT-1: nvvm.mbarrier.init
// ONE-NOT: nvvm.mbarrier.init
// ONE: tile.bind_storage %{{.*}} {panel_bytes = 128 : i64, panel_rows = 128 : i64} : index to memref<128x64xf16, #tile.scope<shared>>
// ONE: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n256k16, warps = [8, 1]>} :

// TMA-LABEL: func.func @gemm
// TMA-SAME: %{{.*}}: !llvm.ptr {tile.tma = {box = array<i64: 128, 64>, param = 0 : i64, swizzle = 128 : i64}}, %{{.*}}: !llvm.ptr {tile.tma = {box = array<i64: 64, 64>, param = 1 : i64, swizzle = 128 : i64}})
// TMA: tile.kernel {{.*}} attributes {planned_shared_bytes = 49152 : i64, tile.producer_threads = 128 : i64, tile.shared_bytes = 197696 : i64} {
// TMA-COUNT-8: nvvm.mbarrier.init
// TMA: %[[AS:.*]] = tile.bind_storage %{{.*}} {panel_bytes = 128 : i64, panel_rows = 128 : i64} : index to memref<128x64xf16, #tile.scope<shared>>
// TMA: %[[BS:.*]] = tile.bind_storage %{{.*}} {panel_bytes = 128 : i64, panel_rows = 64 : i64} : index to memref<64x256xf16, #tile.scope<shared>>
// TMA: tile.gemm %[[AS]], %[[BS]], %{{.*}} {mma = #tile.mma<wgmma, m64n256k16, warps = [8, 1]>, tile.wgmma_pending}
// The epilogue goes through a row-padded shared tile.
// TMA: tile.bind_storage %{{.*}} : memref<128x264xf16, #gpu.address_space<workgroup>> to memref<128x264xf16, #tile.scope<shared>>
// TMA: } {tile.consumer_threads = 256 : i64}

//--- unplaced.mlir

func.func @unplaced(%A: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op has no storage yet; tile-software-pipeline runs on placed buffers (run tile-place-buffers first)}}
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %c4 step %c1 num_stages = 3 {
      tile.copy %A[%c0, %k] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    }
  }
  return
}
