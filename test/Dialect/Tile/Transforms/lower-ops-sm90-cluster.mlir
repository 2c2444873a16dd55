// tile-lower-ops for sm_90a: a TMA pipeline with a producer warpgroup in a
// kernel launched in thread-block clusters along one grid dimension
// multicasts the loads whose box is the same in every block of the cluster:
// each block loads 1 / size of the rows into the stage buffers of all
// (cp.async.bulk.tensor .multicast::cluster, completing on every block's
// full barrier, which still expects the whole stage). A stage is free once
// the consumers of every block released it: one lane a consumer warp
// arrives on the stage's empty barrier in each block (mapa, cluster scope),
// so the empty barriers count warps x blocks; the last stage is released
// after the loop, and the producer waits for every stage to be released
// before the block may exit. The barriers are initialized before a cluster
// barrier.
//
// (`// -----` ends each part: test/Robustness/fuzz.py takes them one by one.)
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/share-a.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s
// RUN: tile-opt %t/share-b.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=SHAREB
// RUN: tile-opt %t/swizzled.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=SWIZZLED
// RUN: tile-opt %t/not-shared.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=NOTSHARED
// RUN: tile-opt %t/uneven-bounds.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=UNEVEN

//--- share-a.mlir
// cluster(2, 1): the two blocks of a cluster have the same by, so the same
// A tile: each loads 64 of its 128 rows (a 64 x 64 box) into both.
// CHECK-LABEL: func.func @share_a(
// CHECK-SAME: %[[DA:[a-z0-9]+]]: !llvm.ptr {tile.tma = {box = array<i64: 64, 64>, param = 0 : i64, swizzle = 128 : i64}}
// CHECK-SAME: %[[DB:[a-z0-9]+]]: !llvm.ptr {tile.tma = {box = array<i64: 64, 64>, param = 1 : i64, swizzle = 128 : i64}}
// Empty barriers: 8 consumer warps x 2 blocks.
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c16_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// The consumers: lane 0 of each warp releases the previous stage in both
// blocks ...
// CHECK: nvvm.wgmma.mma_async
// CHECK: arith.remui %{{.*}}, %c32
// CHECK: nvvm.mapa %{{.*}}, %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// CHECK-NEXT: nvvm.mapa %{{.*}}, %c1_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// ... and the last one after the loop.
// CHECK: "wgmma.wait_group.sync.aligned 0;\0A\09membar.cta;"
// CHECK: nvvm.mapa
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<7>
// The producer: the block's rank picks its slice of A (rows + 64 rank,
// 64 rank rows into the buffer); B is the block's own.
// CHECK: } else {
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[R:.*]] = arith.index_castui %[[RANK]] : i32 to index
// CHECK: arith.muli %[[R]], %c64
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DA]], %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %c3_i16
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DB]], %{{.*}}, box[%{{.*}}, %{{.*}}] :
// Before exiting, the producer waits until every stage is free again.
// CHECK: scf.for %{{.*}} = %c16 to %c19 step %c1
// CHECK: nvvm.mbarrier.try_wait.parity
func.func @share_a(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) cluster(2, 1) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

//--- share-b.mlir
// cluster(1, 2): B is shared (32 of its 64 K rows a block, in each of its
// four panels); A is the block's own.
// SHAREB-LABEL: func.func @share_b(
// SHAREB-SAME: %[[DA:[a-z0-9]+]]: !llvm.ptr {tile.tma = {box = array<i64: 128, 64>, param = 0 : i64, swizzle = 128 : i64}}
// SHAREB-SAME: %[[DB:[a-z0-9]+]]: !llvm.ptr {tile.tma = {box = array<i64: 32, 64>, param = 1 : i64, swizzle = 128 : i64}}
// SHAREB: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DA]], %{{.*}}, box[%{{.*}}, %{{.*}}] :
// SHAREB-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DB]], %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %c3_i16
func.func @share_b(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) cluster(1, 2) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

//--- swizzled.mlir
// Block rows remapped per pair of blocks (bx floordiv 2, as T.use_swizzle
// walks clusters): still the same A in both blocks of a cluster.
// SWIZZLED-LABEL: func.func @swizzled(
// SWIZZLED: multicast_mask = %c3_i16
func.func @swizzled(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) cluster(2, 1) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %pair = arith.floordivsi %bx, %c2 : index
    %row = arith.addi %by, %pair : index
    %m0 = arith.muli %row, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

//--- not-shared.mlir
// Both tiles depend on bx: nothing is shared; the cluster only reaches the
// launch (every thread releases its own block's stage).
// NOTSHARED-LABEL: func.func @not_shared(
// NOTSHARED: tile.kernel {{.*}} cluster(2, 1)
// NOTSHARED-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c256_i32
// NOTSHARED-NOT: nvvm.cluster.arrive
// NOTSHARED-NOT: nvvm.mapa
// NOTSHARED-NOT: multicast_mask
func.func @not_shared(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) cluster(2, 1) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %bx, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

//--- uneven-bounds.mlir
// The trip count depends on bx: the blocks of a cluster could run different
// iterations, so nothing is multicast.
// UNEVEN-LABEL: func.func @uneven_bounds(
// UNEVEN-NOT: nvvm.mapa
// UNEVEN-NOT: multicast_mask
func.func @uneven_bounds(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) cluster(2, 1) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %ub = arith.addi %bx, %c16 : index
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %ub step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}
