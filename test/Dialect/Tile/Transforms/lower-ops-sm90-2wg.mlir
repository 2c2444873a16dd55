// sm_90a wgmma with two 64-row blocks a warpgroup: a 256 x 128 tile on two
// consumer warpgroups (a 128 x 128 tile on one). Warp q of warpgroup g holds
// rows 16q .. 16q + 15 of blocks 2g and 2g + 1 (64 registers each, in the
// order of one m64n128 accumulator); every k-step issues one wgmma per
// block, each reading its 64 rows of A. The same layout runs as mma.sync
// when the loads stay off TMA; FullRow takes it too, FullCol keeps its
// warp split (and mma.sync).
// (`// -----` ends each part: test/Robustness/fuzz.py takes them one by one.)
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/two-blocks.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a | FileCheck %s --check-prefix=LAYOUT
// RUN: tile-opt %t/two-blocks.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s
// RUN: tile-opt %t/one-warpgroup.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=ONEWG
// RUN: tile-opt %t/no-tma.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=MMA
// RUN: tile-opt %t/full-row.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=POLICY

//--- two-blocks.mlir
// LAYOUT-LABEL: func.func @two_blocks(
// LAYOUT: tile.alloc_fragment {tile.layout = #tile.fragment<[256, 128], threads = 256, (d0, d1) -> ((d0 floordiv 128) * 128 + ((d0 mod 64) floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, ((d0 mod 128) floordiv 64) * 64 + (d1 floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2)
// CHECK-LABEL: func.func @two_blocks(
// CHECK: tile.kernel {{.*}} threads(256) attributes {tile.producer_threads = 128 : i64
// CHECK: nvvm.setmaxregister increase 232
// A warpgroup's A rows start 256 rows (32 KiB) apart, its second block 64
// rows (8 KiB) after its first.
// CHECK: %[[G:.*]] = arith.divui %{{.*}}, %c128 : index
// CHECK: arith.muli %[[G]], %c16384 : index
// CHECK: arith.addi %{{.*}}, %c8192 : index
// Four k-steps, two blocks each, on 64-register halves of the accumulator.
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: nvvm.wgmma.mma_async %{{.*}}, <m = 64, n = 128, k = 16>, {{.*}} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// The epilogue: both strips of both panels with stmatrix, two TMA stores.
// CHECK: "wgmma.wait_group.sync.aligned 0;\0A\09membar.cta;"
// CHECK-COUNT-16: nvvm.stmatrix
// CHECK-NOT: nvvm.stmatrix
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
func.func @two_blocks(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %cM = arith.constant 256 : index
  tile.kernel (%bx, %by) in (8, 4) threads(256) {
    %As = tile.alloc_shared : memref<256x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<256x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<256x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cM : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<256x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<256x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<256x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<256x128xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

//--- one-warpgroup.mlir
// 128 x 128 on one warpgroup (128 threads): two wgmmas a k-step.
// ONEWG-LABEL: func.func @one_warpgroup(
// ONEWG: tile.producer_threads = 128 : i64
// ONEWG-COUNT-8: nvvm.wgmma.mma_async
func.func @one_warpgroup(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %cM = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cM : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

//--- no-tma.mlir
// Loads off TMA (disable_tma): the same accumulator layout, as mma.sync
// (2 strips x 16 n8 atoms x 4 k16 steps a warp).
// MMA-LABEL: func.func @no_tma(
// MMA-NOT: nvvm.wgmma
// MMA-COUNT-128: nvgpu.mma.sync
// MMA-NOT: nvgpu.mma.sync
func.func @no_tma(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %cM = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cM : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As {tile.disable_tma} : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs {tile.disable_tma} : memref<1024x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

//--- full-row.mlir
// FullRow (all warps along M) is the partition of two 64-row blocks a
// warpgroup too: wgmma, two a k-step (FullCol keeps its warp split and
// mma.sync: select-mma.mlir).
// POLICY-LABEL: func.func @full_row(
// POLICY-NOT: nvgpu.mma.sync
// POLICY-COUNT-2: nvvm.wgmma.mma_async
// POLICY-NOT: nvgpu.mma.sync
func.func @full_row(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %cM = arith.constant 256 : index
  tile.kernel (%bx, %by) in (8, 4) threads(256) {
    %As = tile.alloc_shared : memref<256x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<256x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<256x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cM : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<256x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {policy = #tile.policy<full_row>} : memref<256x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<256x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<256x128xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}
