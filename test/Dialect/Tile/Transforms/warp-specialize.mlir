// tile-warp-specialize: which kernels get a producer warpgroup (their
// tile.producer_threads), decided before tile-infer-layouts from the gemms'
// #tile.mma; tile-software-pipeline builds the producer only where the
// attribute asks for it, and reports an attribute it cannot honour.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/decide.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a | FileCheck %s
// RUN: tile-opt %t/decide.mlir --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %t/decide.mlir --tile-warp-specialize=target=cpu | FileCheck %s --check-prefix=SM80
// Running it twice changes nothing more.
// RUN: tile-opt %t/decide.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-warp-specialize=target=sm_90a | FileCheck %s
// Without the pass, the TMA ring has no producer; with it, the producer the
// attribute asked for.
// RUN: tile-opt %t/decide.mlir --tile-select-mma=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a | FileCheck %s --check-prefix=NOPASS
// RUN: tile-opt %t/decide.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a | FileCheck %s --check-prefix=BUILT
// RUN: tile-opt %t/invalid.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a -split-input-file -verify-diagnostics
// RUN: tile-opt %t/invalid-sm80.mlir --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 -verify-diagnostics

//--- decide.mlir
// A 128x256 tile on two warpgroups, three stages: a producer warpgroup.
// CHECK-LABEL: func.func @two_warpgroups
// CHECK: tile.kernel {{.*}} threads(256) attributes {tile.producer_threads = 128 : i64}
// SM80-LABEL: func.func @two_warpgroups
// SM80-NOT: producer_threads
// NOPASS-LABEL: func.func @two_warpgroups
// NOPASS-NOT: producer_threads
// NOPASS-NOT: tile.consumer_threads
// NOPASS: return
// BUILT-LABEL: func.func @two_warpgroups
// BUILT: tile.kernel {{.*}} threads(256) attributes {{{.*}}tile.producer_threads = 128 : i64
// BUILT: } {tile.consumer_threads = 256 : i64}
func.func @two_warpgroups(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
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
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] [128, 64] to %As[0, 0] [128, 64] : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [64, 256] to %Bs[0, 0] [64, 256] : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 256] to %C[%m0, %n0] [128, 256] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// The same loop with tile.warp_specialize = false on it: none.
// CHECK-LABEL: func.func @opted_out
// CHECK-NOT: producer_threads
// CHECK: return
func.func @opted_out(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
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
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 attributes {tile.warp_specialize = false} {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] [128, 64] to %As[0, 0] [128, 64] : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [64, 256] to %Bs[0, 0] [64, 256] : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 256] to %C[%m0, %n0] [128, 256] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// One stage: a producer could not load ahead.
// CHECK-LABEL: func.func @one_stage
// CHECK-NOT: producer_threads
// CHECK: return
func.func @one_stage(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
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
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 1 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] [128, 64] to %As[0, 0] [128, 64] : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [64, 256] to %Bs[0, 0] [64, 256] : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 256] to %C[%m0, %n0] [128, 256] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// One warpgroup whose accumulator (128x128: two m64n128 blocks, 128
// registers a thread) fills its registers, in 16 x 16 blocks (more than the
// SMs): no producer, whose registers would halve the blocks an SM holds.
// In 2 x 8 blocks (one wave), the producer pays.
// CHECK-LABEL: func.func @register_bound
// CHECK: tile.kernel {{.*}} in (16, 16) threads(128) {
// CHECK: tile.kernel {{.*}} in (2, 8) threads(128) attributes {tile.producer_threads = 128 : i64}
func.func @register_bound(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (16, 16) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] [128, 64] to %As[0, 0] [128, 64] : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [64, 128] to %Bs[0, 0] [64, 128] : memref<1024x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 128] to %C[%m0, %n0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  tile.kernel (%bx, %by) in (2, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] [128, 64] to %As[0, 0] [128, 64] : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [64, 128] to %Bs[0, 0] [64, 128] : memref<1024x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 128] to %C[%m0, %n0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// A loop whose gemm reads what the block's threads wrote (no TMA pipeline:
// mma_sync) gets no producer.
// CHECK-LABEL: func.func @no_tma
// CHECK-NOT: producer_threads
// CHECK: return
func.func @no_tma(%A: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f16
  tile.kernel (%bx) in (4) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      tile.fill %As, %one : memref<128x64xf16, #tile.scope<shared>>, f16
      tile.fill %Bs, %one : memref<64x128xf16, #tile.scope<shared>>, f16
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 128] to %C[%c0, %c0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

//--- invalid.mlir
// A producer asked for a loop of one stage.
func.func @one_stage(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  // expected-error @+1 {{has tile.producer_threads, but its pipelined loop cannot have a producer warpgroup}}
  tile.kernel (%bx, %by) in (4, 8) threads(256) attributes {tile.producer_threads = 128 : i64} {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 1 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] [128, 64] to %As[0, 0] [128, 64] : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [64, 256] to %Bs[0, 0] [64, 256] : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 256] to %C[%m0, %n0] [128, 256] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

// A producer asked for a kernel without a TMA pipeline.
func.func @no_ring(%C: memref<1024x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{has tile.producer_threads, but no pipelined loop of it is a TMA pipeline}}
  tile.kernel (%bx) in (4) threads(128) attributes {tile.producer_threads = 128 : i64} {
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.scope<fragment>>, f32
    tile.copy %Cf[0, 0] [128, 128] to %C[0, 0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf32>
  }
  return
}

//--- invalid-sm80.mlir
// sm_80 has no TMA pipelines to give a producer.
func.func @sm80(%C: memref<1024x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{has tile.producer_threads, but no pipelined loop of it is a TMA pipeline}}
  tile.kernel (%bx) in (4) threads(128) attributes {tile.producer_threads = 128 : i64} {
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.fill %Cf, %zero : memref<128x128xf32, #tile.scope<fragment>>, f32
    tile.copy %Cf[0, 0] [128, 128] to %C[0, 0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf32>
  }
  return
}
