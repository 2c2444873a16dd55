// The sm_90a GEMM path, from tile IR to PTX: TMA loads into an mbarrier
// ring, a producer warpgroup, and wgmma from shared-memory descriptors.
// The fp16 GEMM is examples/gemm/gemm_sm90.mlir (B row-major: wgmma reads
// it MN-major, "tnspB"); the fp8 GEMM below reads B as N x K (K-major).
//
// RUN: tile-opt %tile_src_root/examples/gemm/gemm_sm90.mlir --tile-to-nvvm='chip=sm_90a format=isa' -o %t.f16.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.f16.mlir
// RUN: %python %S/extract_ptx.py %t.f16.mlir %t.f16.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t.f16.ptx
// RUN: FileCheck %s --check-prefix=PRODUCER < %t.f16.ptx
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_90a format=isa' -o %t.fp8.mlir
// RUN: %python %S/extract_ptx.py %t.fp8.mlir %t.fp8.ptx
// RUN: FileCheck %s --check-prefix=FP8 < %t.fp8.ptx
//
// The launch gets the producer warpgroup (256 + 128 threads) and the two
// descriptors, which the launcher builds (tile.tma on the host arguments).
// HOST: llvm.func @gemm(
// HOST: gpu.launch_func @gemm_kernel::@gemm_kernel
// HOST-SAME: threads in (%{{.*}}, %{{.*}}, %{{.*}})
//
// Descriptors are 128-byte parameters passed by value (grid constants).
// F16: .visible .entry gemm_kernel(
// F16: .param .align 64 .b8 gemm_kernel_param_{{[0-9]+}}[128]
// F16: .param .align 64 .b8 gemm_kernel_param_{{[0-9]+}}[128]
// F16: .maxntid 384, 1, 1
// Barriers: a full and an empty mbarrier per stage.
// F16-COUNT-8: mbarrier.init.shared.b64
// F16: fence.mbarrier_init.release.cluster
// Consumers: more registers, each stage handed over by a named barrier.
// F16: setmaxnreg.inc.sync.aligned.u32 232
// F16: bar.sync {{%r[0-9]+}}, 288
// F16: mbarrier.test_wait.parity.shared::cta.b64
// F16: wgmma.fence.sync.aligned
// F16: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// F16-SAME: p, 1, 1, 0, 1;
// F16: wgmma.commit_group.sync.aligned
// F16: wgmma.wait_group.sync.aligned 1
// F16: mbarrier.arrive.shared.b64
// After the loop: every wgmma done, then C goes through the free stage
// buffers: f16x2 pairs into shared memory, 16-byte vectors out.
// F16: wgmma.wait_group.sync.aligned 0
// F16-NEXT: membar.cta
// F16: st.shared.b32
// F16: st.global.v4.b32
// Producer: fewer registers, TMA loads of 128-byte-swizzled panels
// (checked apart: LLVM places it before or after the consumers' epilogue).
// PRODUCER: setmaxnreg.dec.sync.aligned.u32 40
// PRODUCER-DAG: mbarrier.try_wait.parity.shared.b64
// PRODUCER-DAG: mbarrier.arrive.expect_tx.shared.b64
// PRODUCER-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PRODUCER-DAG: bar.arrive {{%r[0-9]+}}, {{%r[0-9]+|288}}
//
// FP8: .maxntid 384, 1, 1
// FP8: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// FP8: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
func.func @gemm_fp8(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %C: memref<?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %K = memref.dim %A, %c1 : memref<?x?xf8E4M3FN>
  %kt = arith.divui %K, %c128 : index
  tile.kernel (%bx, %by) in (16, 32) threads(256) {
    %As = tile.alloc_shared : memref<128x128xf8E4M3FN, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<256x128xf8E4M3FN, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 4 {
      %k0 = arith.muli %k, %c128 : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xf8E4M3FN> to memref<128x128xf8E4M3FN, #tile.scope<shared>>
      tile.copy %B[%n0, %k0] to %Bs : memref<?x?xf8E4M3FN> to memref<256x128xf8E4M3FN, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x128xf8E4M3FN, #tile.scope<shared>>, memref<256x128xf8E4M3FN, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<?x?xbf16>
  }
  return
}
