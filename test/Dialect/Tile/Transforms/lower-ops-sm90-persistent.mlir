// tile-lower-ops for sm_90a: a pipelined loop that runs once per tile of a
// persistent block (T.Persistent: an scf.for directly in the kernel) shares
// one mbarrier ring and one producer warpgroup among its runs. The producer
// walks the tiles too and loads the next tile while the consumers store this
// one; the accumulators leave through an epilogue buffer of their own where
// shared memory has room for it. (Stores by TMA: lower-ops-sm90-tma-store.mlir;
// these keep theirs from TMA, disable_tma.)
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/three-stages.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s
// RUN: tile-opt %t/four-stages.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=FULL
// RUN: tile-opt %t/per-tile-bounds.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=BOUNDS

//--- three-stages.mlir
// 3 stages of 48 KiB, then the 128 x (256 + 8) f16 epilogue buffer.
// CHECK-LABEL: func.func @three_stages(
// CHECK: tile.kernel {{.*}} in (132) threads(256) attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 216192 : i64}
// CHECK: nvvm.setmaxregister increase 232
// The consumers' ring position continues across tiles: iteration k of tile
// loop iteration w is number 16 w + k, in stage (16 w + k) mod 3.
// CHECK: scf.for %[[W:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[BASE:.*]] = arith.muli %[[W]], %c16 : index
// CHECK: scf.for %[[K:.*]] = %c0 to %c16 step %c1
// CHECK: %[[ITER:.*]] = arith.addi %[[BASE]], %[[K]] : index
// CHECK: arith.remui %[[ITER]], %c3
// CHECK: nvvm.barrier id
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: "wgmma.wait_group.sync.aligned 1;"
// The previous iteration's stage is released from this tile's second
// iteration on (the first tile's first releases nothing) ...
// CHECK: arith.cmpi ugt, %[[ITER]], %[[BASE]] : index
// CHECK: nvvm.mbarrier.arrive
// ... and the last iteration's stage right after the loop.
// CHECK: "wgmma.wait_group.sync.aligned 0;\0A\09membar.cta;"
// CHECK: nvvm.mbarrier.arrive
// The epilogue: pairs into the padded buffer, then whole rows.
// CHECK: vector.load %{{.*}} : memref<128x264xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.store %{{.*}} : memref<1024x1024xf16>, vector<8xf16>
// The producer loads every tile's iterations in turn.
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// CHECK-COUNT-5: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.barrier.arrive
// CHECK: } {tile.consumer_threads = 256 : i64}
func.func @three_stages(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%block) in (132) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    // Tiles block, block + 132, ... of the 8 x 4 tiles.
    %left = arith.subi %c32, %block : index
    %waves = arith.ceildivsi %left, %c128 : index
    scf.for %w = %c0 to %waves step %c1 {
      %wt = arith.muli %w, %c128 : index
      %t = arith.addi %block, %wt : index
      %by = arith.divui %t, %c4 : index
      %bx = arith.remui %t, %c4 : index
      tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c256 : index
      tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
        %k0 = arith.muli %k, %c64 : index
        tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
        tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
        tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
      }
      tile.copy %Cf to %C[%m0, %n0] {tile.disable_tma} : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
    }
  }
  return
}

//--- four-stages.mlir
// 4 stages leave no room for the 66 KiB padded epilogue buffer: each thread
// stores its pairs.
// FULL-LABEL: func.func @four_stages(
// FULL: tile.producer_threads = 128 : i64, tile.shared_bytes = 197696 : i64
// FULL-NOT: memref<128x264xf16
// FULL: vector.store %{{.*}} : memref<1024x1024xf16>, vector<2xf16>
// FULL-NOT: memref<128x264xf16
// FULL: nvvm.setmaxregister decrease 40
func.func @four_stages(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%block) in (132) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    // Tiles block, block + 132, ... of the 8 x 4 tiles.
    %left = arith.subi %c32, %block : index
    %waves = arith.ceildivsi %left, %c128 : index
    scf.for %w = %c0 to %waves step %c1 {
      %wt = arith.muli %w, %c128 : index
      %t = arith.addi %block, %wt : index
      %by = arith.divui %t, %c4 : index
      %bx = arith.remui %t, %c4 : index
      tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c256 : index
      tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 4 {
        %k0 = arith.muli %k, %c64 : index
        tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
        tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
        tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
      }
      tile.copy %Cf to %C[%m0, %n0] {tile.disable_tma} : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
    }
  }
  return
}

//--- per-tile-bounds.mlir
// The K loop's trip count depends on the tile: no shared ring, so no
// producer warpgroup; the loop keeps TMA loads (its barriers set up per run).
// BOUNDS-LABEL: func.func @per_tile_bounds(
// BOUNDS-NOT: tile.producer_threads
// BOUNDS: scf.for
// BOUNDS: nvvm.mbarrier.init
// BOUNDS: nvvm.cp.async.bulk.tensor.shared.cluster.global
// BOUNDS: nvvm.mbarrier.try_wait.parity
// BOUNDS: nvvm.wgmma.mma_async
func.func @per_tile_bounds(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%block) in (132) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    // Tiles block, block + 132, ... of the 8 x 4 tiles.
    %left = arith.subi %c32, %block : index
    %waves = arith.ceildivsi %left, %c128 : index
    scf.for %w = %c0 to %waves step %c1 {
      %wt = arith.muli %w, %c128 : index
      %t = arith.addi %block, %wt : index
      %by = arith.divui %t, %c4 : index
      %bx = arith.remui %t, %c4 : index
      tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c256 : index
      %kend = arith.addi %by, %c1 : index
      tile.pipelined %k = %c0 to %kend step %c1 num_stages = 3 {
        %k0 = arith.muli %k, %c64 : index
        tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
        tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
        tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
      }
      tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
    }
  }
  return
}
