// C = A * B for f16 A (M x K) and B (K x N), f32 accumulation, f16 C, in
// tiles that suit Hopper (sm_90a): 128x256 per block, K in steps of 64,
// 4 pipeline stages, two warpgroups (256 threads), each computing 64 rows
// with wgmma m64n256k16.
//
// On sm_90a `tile-to-nvvm` loads the stages with TMA into 128-byte-swizzled
// shared memory, adds a producer warpgroup (384 threads in all) and runs
// the gemm as wgmma from shared-memory descriptors; the function gets one
// TMA descriptor argument per loaded tile (tile.tma = {param, box, swizzle}).
//
//   tile-opt examples/gemm/gemm_sm90.mlir --tile-to-nvvm='chip=sm_90a format=isa'
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %c255 = arith.constant 255 : index
  %c256 = arith.constant 256 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %n1 = arith.addi %N, %c255 : index
  %gx = arith.divui %n1, %c256 : index
  %m1 = arith.addi %M, %c127 : index
  %gy = arith.divui %m1, %c128 : index
  %k1 = arith.addi %K, %c63 : index
  %kt = arith.divui %k1, %c64 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 4 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}
