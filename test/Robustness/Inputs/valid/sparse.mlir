// A valid sparse gemm and fragment-to-shared copies: a fuzzer seed.
func.func @sparse(%A: memref<?x?xf16>, %E: memref<?x?xi16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  tile.kernel (%bx) in (16) threads(256) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Es = tile.alloc_shared : memref<128x4xi16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %Cs = tile.alloc_shared : memref<128x128xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] to %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    tile.copy %E[0, 0] to %Es : memref<?x?xi16> to memref<128x4xi16, #tile.scope<shared>>
    tile.copy %B[0, 0] to %Bs : memref<?x?xf16> to memref<64x128xf16, #tile.scope<shared>>
    tile.gemm_sp %As, %Es, %Bs, %Cf {clear_accum} : memref<128x32xf16, #tile.scope<shared>>, memref<128x4xi16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.copy %Cf to %Cs {inst = #tile.copy_inst<stmatrix>} : memref<128x128xf32, #tile.scope<fragment>> to memref<128x128xf16, #tile.scope<shared>>
    tile.copy %Cs to %C[%bx, 0] {inst = #tile.copy_inst<tma>} : memref<128x128xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

func.func @fp8_and_int(%A: memref<64x64xf8E4M3FN>, %I: memref<64x64xi8>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1 : i32
  tile.kernel (%bx, %by, %bz) in (2, %n, 1) threads(64) {
    %As = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.scope<shared>>
    %Bf = tile.alloc_fragment : memref<64x64xf8E5M2, #tile.scope<fragment>>
    %Cf = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    %Is = tile.alloc_shared : memref<64x64xi8, #tile.scope<shared>>
    %If = tile.alloc_fragment : memref<64x64xi32, #tile.scope<fragment>>
    tile.copy %A to %As : memref<64x64xf8E4M3FN> to memref<64x64xf8E4M3FN, #tile.scope<shared>>
    tile.copy %As to %Bf {inst = #tile.copy_inst<ldmatrix>} : memref<64x64xf8E4M3FN, #tile.scope<shared>> to memref<64x64xf8E5M2, #tile.scope<fragment>>
    tile.gemm %As, %Bf, %Cf {transpose_a, policy = #tile.policy<full_col>} : memref<64x64xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf8E5M2, #tile.scope<fragment>>, memref<64x64xf16, #tile.scope<fragment>>
    tile.copy %I[%bx, %c0] [64, 64] to %Is[0, 0] [64, 64] {pad = 0 : i8} : memref<64x64xi8> to memref<64x64xi8, #tile.scope<shared>>
    tile.fill %If, %one : memref<64x64xi32, #tile.scope<fragment>>, i32
    tile.gemm %Is, %Is, %If : memref<64x64xi8, #tile.scope<shared>>, memref<64x64xi8, #tile.scope<shared>>, memref<64x64xi32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %n step %c2 num_stages = 1 {
      tile.parallel (%i) in (64) {
        %v = memref.load %If[%i, %i] : memref<64x64xi32, #tile.scope<fragment>>
      }
    }
  }
  return
}
