// TileLang's Hopper GEMM as its examples write it (see
// gemm-shared-epilogue-ptx.test): the accumulator leaves through a shared
// tile allocated after it, C_shared; 1024 x 1024 x 4096 f16, one block per
// 128 x 128 tile, 64 iterations of K, at 3 and at 4 stages.
func.func @gemm_s3(%A: memref<1024x4096xf16>, %B: memref<4096x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %Cs = tile.alloc_shared : memref<128x128xf16, #tile.scope<shared>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x4096xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<4096x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %Cs : memref<128x128xf32, #tile.scope<fragment>> to memref<128x128xf16, #tile.scope<shared>>
    tile.copy %Cs to %C[%m0, %n0] : memref<128x128xf16, #tile.scope<shared>> to memref<1024x1024xf16>
  }
  return
}

func.func @gemm_s4(%A: memref<1024x4096xf16>, %B: memref<4096x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %Cs = tile.alloc_shared : memref<128x128xf16, #tile.scope<shared>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 4 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x4096xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<4096x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %Cs : memref<128x128xf32, #tile.scope<fragment>> to memref<128x128xf16, #tile.scope<shared>>
    tile.copy %Cs to %C[%m0, %n0] : memref<128x128xf16, #tile.scope<shared>> to memref<1024x1024xf16>
  }
  return
}
