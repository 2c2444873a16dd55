// Every pass that asks the target takes the same one when its `target`
// option is not given (getDefaultTargetName: sm_90a): the chain without
// options is the chain for sm_90a, each pass alone too.
//
// RUN: tile-opt %s --tile-verify-target --tile-select-mma --tile-warp-specialize --tile-infer-layouts --tile-plan-shared --tile-place-buffers --tile-software-pipeline --tile-plan-scratch --tile-lower-ops --tile-lower-kernel > %t.default
// RUN: tile-opt %s --tile-verify-target=target=sm_90a --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a --tile-lower-kernel=target=sm_90a > %t.sm90a
// RUN: diff %t.default %t.sm90a
// RUN: FileCheck %s < %t.default
// RUN: tile-opt %s --tile-select-mma | FileCheck %s --check-prefix=SELECT
// RUN: tile-opt %s --tile-select-mma --tile-warp-specialize --tile-infer-layouts > %t.layouts
// RUN: tile-opt %s --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a | diff %t.layouts -
// RUN: tile-opt %s --tile-select-mma --tile-warp-specialize --tile-infer-layouts --tile-plan-shared --tile-place-buffers --tile-software-pipeline --tile-plan-scratch --tile-lower-ops > %t.ops
// RUN: tile-opt %s --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | diff %t.ops -
// The default target has clusters (sm_80 and the CPU have none).
// RUN: tile-opt %s --tile-verify-target -o /dev/null

// CHECK: gpu.launch
// CHECK: nvvm.wgmma.mma_async
// SELECT: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n256k16, warps = [8, 1]>}
func.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) cluster(2, 1) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf32>
  }
  return
}
