// tile-apply-pass-configs: TileLang's kernel-wide "no TMA" and "no warp
// specialization" pass configs become the per-op attributes the sm_90a
// lowering reads; without options nothing changes. The last two runs lower
// for sm_90a: the TMA pipeline with a producer warpgroup as it is, neither
// once both configs are applied.
//
// RUN: tile-opt %s --tile-apply-pass-configs | FileCheck %s --check-prefix=NONE
// RUN: tile-opt %s --tile-apply-pass-configs=disable-tma-lower=true | FileCheck %s --check-prefix=TMA
// RUN: tile-opt %s --tile-apply-pass-configs=disable-warp-specialized=true | FileCheck %s --check-prefix=WS
// RUN: tile-opt %s --tile-apply-pass-configs --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=PLAIN
// RUN: tile-opt %s --tile-apply-pass-configs="disable-tma-lower=true disable-warp-specialized=true" --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=LOWERED

// NONE-LABEL: func.func @gemm
// NONE-NOT: tile.disable_tma
// NONE-NOT: tile.warp_specialize

// TMA-LABEL: func.func @gemm
// TMA: tile.pipelined
// TMA-NOT: tile.warp_specialize
// TMA: tile.copy %{{.*}} to %{{.*}} {tile.disable_tma}
// TMA: tile.copy %{{.*}} to %{{.*}} {tile.disable_tma}
// TMA: tile.copy %{{.*}} to %{{.*}} {tile.disable_tma}

// WS-LABEL: func.func @gemm
// WS-NOT: tile.disable_tma
// WS: tile.pipelined {{.*}} attributes {tile.warp_specialize = false}

// PLAIN-LABEL: func.func @gemm
// PLAIN: tile.producer_threads = 128
// PLAIN: nvvm.cp.async.bulk.tensor.shared.cluster.global

// LOWERED-LABEL: func.func @gemm
// LOWERED-NOT: tile.producer_threads
// LOWERED-NOT: nvvm.cp.async.bulk.tensor
// LOWERED: return
func.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
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
