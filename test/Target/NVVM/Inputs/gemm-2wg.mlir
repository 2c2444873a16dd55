// A 256 x 128 x 64 sm_90a GEMM on two consumer warpgroups, each 128 rows
// as two m64n128 wgmmas a k-step (see gemm-2wg-ptx.test).
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
