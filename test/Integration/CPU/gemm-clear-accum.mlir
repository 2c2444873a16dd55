// tile.gemm with clear_accum: the accumulator is zeroed before the product
// is added, whatever it held (here NaN), and a gemm without clear_accum
// after it accumulates on top. K <= 64 fits one tile (the rest of the tile
// is padded with zeros); M, N hang over the 64x64 output tiles.
//   C0 = A @ B          (Cf filled with NaN, then gemm {clear_accum})
//   C1 = A @ B + A @ B  (then a plain gemm)
//   C2 = A @ B          (then gemm {clear_accum} again, B transposed: Bt)
// RUN: tile-run %s --entry=gemm_clear_accum --seed=1 --arg=f16:100x50 --arg=f16:50x70 --arg=f16:70x50 \
// RUN:   --arg=f32:100x70:poison --arg=f32:100x70:poison --arg=f32:100x70:poison --save=%t.a
// RUN: %python %S/check.py %t.a --out 3 --ref "in0 @ in1" --out 4 --ref "2 * (in0 @ in1)" \
// RUN:   --out 5 --ref "in0 @ in2.T" --rtol 1e-4 --atol 1e-4 | FileCheck %s
// RUN: tile-run %s --entry=gemm_clear_accum --seed=2 --arg=f16:1x64 --arg=f16:64x129 --arg=f16:129x64 \
// RUN:   --arg=f32:1x129:poison --arg=f32:1x129:poison --arg=f32:1x129:poison --save=%t.b
// RUN: %python %S/check.py %t.b --out 3 --ref "in0 @ in1" --out 4 --ref "2 * (in0 @ in1)" \
// RUN:   --out 5 --ref "in0 @ in2.T" --rtol 1e-4 --atol 1e-4 | FileCheck %s

// CHECK: out3: ok
// CHECK: out4: ok
// CHECK: out5: ok

func.func @gemm_clear_accum(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %Bt: memref<?x?xf16>,
                            %C0: memref<?x?xf32>, %C1: memref<?x?xf32>, %C2: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %nan = arith.constant 0x7FC00000 : f32
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c64 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Bts = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %A[%m0, 0] to %As : memref<?x?xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.copy %B[0, %n0] to %Bs : memref<?x?xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.copy %Bt[%n0, 0] to %Bts : memref<?x?xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.fill %Cf, %nan : memref<64x64xf32, #tile.scope<fragment>>, f32
    tile.gemm %As, %Bs, %Cf {clear_accum} : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %Cf to %C0[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
    tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %Cf to %C1[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
    tile.gemm %As, %Bts, %Cf {clear_accum, transpose_b} : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %Cf to %C2[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}
