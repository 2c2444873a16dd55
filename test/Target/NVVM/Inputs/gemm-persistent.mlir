// A persistent fp16 GEMM (T.Persistent): 132 blocks walk the 8 x 4 tiles of
// 128 x 256 of a 1024^3 product, 3 TMA stages.
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
      tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
    }
  }
  return
}

