// RUN: tile-opt %s --tile-to-nvvm="chip=sm_80 format=isa" | FileCheck %s
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=SM90A

// The seed GEMM with bf16 inputs and f32 accumulation: the mma.sync of bf16
// operands goes to nvvm.mma.sync (upstream nvgpu.mma.sync does not type
// bf16), fed by ldmatrix like f16. On sm_90a the 64-byte rows of A are
// swizzled panels that TMA loads: wgmma of bf16.
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90A: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

func.func @gemm_bf16(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %M = memref.dim %A, %c0 : memref<?x?xbf16>
  %K = memref.dim %A, %c1 : memref<?x?xbf16>
  %N = memref.dim %B, %c1 : memref<?x?xbf16>
  %n1 = arith.addi %N, %c127 : index
  %gx = arith.divui %n1, %c128 : index
  %m1 = arith.addi %M, %c127 : index
  %gy = arith.divui %m1, %c128 : index
  %k1 = arith.addi %K, %c32 : index
  %k2 = arith.subi %k1, %c1 : index
  %kt = arith.divui %k2, %c32 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<128x32xbf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xbf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xbf16> to memref<128x32xbf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<?x?xbf16> to memref<32x128xbf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xbf16, #tile.scope<shared>>, memref<32x128xbf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x128xf32, #tile.scope<fragment>> to memref<?x?xbf16>
  }
  return
}
