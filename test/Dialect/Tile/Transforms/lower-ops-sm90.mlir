// tile-lower-ops for sm_90a: a pipelined loop whose copies feed a gemm gets
// TMA loads into 128-byte-swizzled stage buffers, an mbarrier ring and a
// producer warpgroup; the gemm becomes wgmma on shared-memory descriptors.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/gemm.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s
// RUN: tile-opt %t/no-ws.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=NOWS
// RUN: tile-opt %t/fallback.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=FALLBACK
// The lowering takes the instruction from the gemm's #tile.mma: a gemm
// without one, or one that asks for wgmma where no TMA pipeline loads the
// operands, is reported.
// RUN: tile-opt %t/no-ws.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a | sed -e 's/mma = #tile.mma<[^>]*>, //' | not tile-opt --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a 2>&1 | FileCheck %s --check-prefix=NOCHOICE
// NOCHOICE: error: 'tile.gemm' op has no #tile.mma instruction choice; run tile-select-mma before tile-lower-ops
// RUN: tile-opt %t/fallback.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a | sed -e 's/#tile.mma<mma_sync, m16n8k16, warps = \[4, 1\]>/#tile.mma<wgmma, m64n24k16, warps = [4, 1]>/' | not tile-opt --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a 2>&1 | FileCheck %s --check-prefix=NOTMA
// NOTMA: error: 'tile.gemm' op has #tile.mma<wgmma, m64n24k16, warps = [4, 1]>, but its operands are not the panel buffers of a TMA pipeline
// RUN: tile-opt %t/too-big.mlir --tile-verify-target=target=sm_90a --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a -verify-diagnostics

//--- gemm.mlir
// One descriptor argument per (tensor, box): A's 128x64 box and B's 64x64
// panels (a 64x256 tile is four 128-byte-wide panels).
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: %[[DA:[a-z0-9]+]]: !llvm.ptr {tile.tma = {box = array<i64: 128, 64>, param = 0 : i64, swizzle = 128 : i64}}
// CHECK-SAME: %[[DB:[a-z0-9]+]]: !llvm.ptr {tile.tma = {box = array<i64: 64, 64>, param = 1 : i64, swizzle = 128 : i64}}
// The block gets a producer warpgroup after its 256 threads.
// CHECK: tile.kernel {{.*}} threads(256) attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = {{[0-9]+}} : i64}
// CHECK: nvvm.mbarrier.init
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// The kernel's own code runs in the consumer threads.
// CHECK: scf.if
// CHECK: nvvm.setmaxregister increase 232
// CHECK: scf.for
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;"
// CHECK: nvvm.mbarrier.arrive
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;\0A\09membar.cta;"
// CHECK: } else {
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DA]], %{{.*}}, box[
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DB]], %{{.*}}, box[
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: } {tile.consumer_threads = 256 : i64}
func.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 4 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

//--- no-ws.mlir
// tile.warp_specialize = false: the same TMA pipeline without a producer
// warpgroup (thread 0 issues the loads, every thread waits on the stage's
// mbarrier).
// NOWS-LABEL: func.func @gemm(
// NOWS: tile.kernel {{.*}} threads(128) attributes {tile.shared_bytes
// NOWS-NOT: tile.producer_threads
// NOWS: nvvm.mbarrier.try_wait.parity
// NOWS: nvvm.wgmma.mma_async
// NOWS-NOT: nvvm.setmaxregister
func.func @gemm(%A: memref<512x512xbf16>, %B: memref<512x512xbf16>, %C: memref<512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (4, 8) threads(128) {
    %As = tile.alloc_shared : memref<64x64xbf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<128x64xbf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 num_stages = 3 attributes {tile.warp_specialize = false} {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<512x512xbf16> to memref<64x64xbf16, #tile.scope<shared>>
      tile.copy %B[%n0, %k0] to %Bs : memref<512x512xbf16> to memref<128x64xbf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x64xbf16, #tile.scope<shared>>, memref<128x64xbf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x128xf32, #tile.scope<fragment>> to memref<512x512xf32>
  }
  return
}

//--- fallback.mlir
// B's rows of 24 halves are 48 bytes, no whole swizzled panel (128, 64 or
// 32 bytes): the loop keeps the cp.async pipeline and the gemm runs as
// mma.sync (on the wgmma warp partition tile-select-mma chose).
// FALLBACK-LABEL: func.func @gemm(
// FALLBACK-NOT: tile.tma
// FALLBACK: nvgpu.device_async_copy
// FALLBACK: nvgpu.mma.sync
// FALLBACK-NOT: nvvm.wgmma.mma_async
func.func @gemm(%A: memref<512x512xf16>, %B: memref<512x512xf16>, %C: memref<512x512xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (4, 8) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x24xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x24xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x24xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0] to %As : memref<512x512xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<512x512xf16> to memref<32x24xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #tile.scope<shared>>, memref<32x24xf16, #tile.scope<shared>>, memref<64x24xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x24xf32, #tile.scope<fragment>> to memref<512x512xf16>
  }
  return
}

//--- too-big.mlir
// tile-verify-target's estimate (9 stages of 24 KiB + an 11 KiB buffer =
// 227 KiB) fits, but the placed TMA pipeline (1 KiB of alignment slack and
// 18 mbarriers more) does not: reported at the kernel.
func.func @gemm(%A: memref<2048x2048xf16>, %B: memref<2048x2048xf16>, %X: memref<88x32xf32>, %C: memref<2048x2048xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  // expected-error @+1 {{'tile.kernel' op needs 233728 bytes of shared memory once its buffers and pipeline stages are placed; sm_90a allows 232448 per block}}
  tile.kernel (%bx, %by) in (32, 16) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Xs = tile.alloc_shared : memref<88x32xf32, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x64xf32, #tile.scope<fragment>>
    tile.copy %X to %Xs : memref<88x32xf32> to memref<88x32xf32, #tile.scope<shared>>
    tile.clear %Cf : memref<128x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 9 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<2048x2048xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<2048x2048xf16> to memref<64x64xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Xs to %X : memref<88x32xf32, #tile.scope<shared>> to memref<88x32xf32>
    tile.copy %Cf to %C[%m0, %n0] : memref<128x64xf32, #tile.scope<fragment>> to memref<2048x2048xf16>
  }
  return
}
