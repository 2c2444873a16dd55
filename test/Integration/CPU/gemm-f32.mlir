// GEMM with f32 inputs and f32 accumulation and output, all four
// transpose combinations (A stored [K, M] for transpose_a, B stored [N, K]
// for transpose_b), 64x64x16 tiles: shapes (MxNxK) 200x328x136 and 1x257x95
// hang over the tile edges, 128x192x48 is a multiple of the tiles.
// RUN: tile-run %s --entry=gemm_f32_all --seed=1 --arg=f32:200x136 --arg=f32:136x328 --arg=f32:136x200 --arg=f32:328x136 --arg=f32:200x328:poison --arg=f32:200x328:poison --arg=f32:200x328:poison --arg=f32:200x328:poison --save=%t.0
// RUN: %python %S/check.py %t.0 --out 4 --ref "in0 @ in1" --out 5 --ref "in2.T @ in1" --out 6 --ref "in0 @ in3.T" --out 7 --ref "in2.T @ in3.T" --rtol 0.0001 --atol 0.0001 | FileCheck %s --check-prefix=G0
// RUN: tile-run %s --entry=gemm_f32_all --seed=2 --arg=f32:1x95 --arg=f32:95x257 --arg=f32:95x1 --arg=f32:257x95 --arg=f32:1x257:poison --arg=f32:1x257:poison --arg=f32:1x257:poison --arg=f32:1x257:poison --save=%t.1
// RUN: %python %S/check.py %t.1 --out 4 --ref "in0 @ in1" --out 5 --ref "in2.T @ in1" --out 6 --ref "in0 @ in3.T" --out 7 --ref "in2.T @ in3.T" --rtol 0.0001 --atol 0.0001 | FileCheck %s --check-prefix=G0
// RUN: tile-run %s --entry=gemm_f32_all --seed=3 --arg=f32:128x48 --arg=f32:48x192 --arg=f32:48x128 --arg=f32:192x48 --arg=f32:128x192:poison --arg=f32:128x192:poison --arg=f32:128x192:poison --arg=f32:128x192:poison --save=%t.2
// RUN: %python %S/check.py %t.2 --out 4 --ref "in0 @ in1" --out 5 --ref "in2.T @ in1" --out 6 --ref "in0 @ in3.T" --out 7 --ref "in2.T @ in3.T" --rtol 0.0001 --atol 0.0001 | FileCheck %s --check-prefix=G0

// G0: out4: ok
// G0: out5: ok
// G0: out6: ok
// G0: out7: ok

func.func @gemm_f32_nn(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 64 : index
  %cBN = arith.constant 64 : index
  %cBK = arith.constant 16 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf32>
  %N = memref.dim %B, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<64x16xf32, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x64xf32, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xf32> to memref<64x16xf32, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf32> to memref<16x64xf32, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<64x16xf32, #tile.scope<shared>>, memref<16x64xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @gemm_f32_tn(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 64 : index
  %cBN = arith.constant 64 : index
  %cBK = arith.constant 16 : index
  %M = memref.dim %A, %c1 : memref<?x?xf32>
  %K = memref.dim %A, %c0 : memref<?x?xf32>
  %N = memref.dim %B, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<16x64xf32, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x64xf32, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%k0, %m0] to %As : memref<?x?xf32> to memref<16x64xf32, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf32> to memref<16x64xf32, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_a} : memref<16x64xf32, #tile.scope<shared>>, memref<16x64xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @gemm_f32_nt(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 64 : index
  %cBN = arith.constant 64 : index
  %cBK = arith.constant 16 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf32>
  %N = memref.dim %B, %c0 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<64x16xf32, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x16xf32, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xf32> to memref<64x16xf32, #tile.scope<shared>>
      tile.copy %B[%n0, %k0] to %Bs : memref<?x?xf32> to memref<64x16xf32, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x16xf32, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @gemm_f32_tt(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 64 : index
  %cBN = arith.constant 64 : index
  %cBK = arith.constant 16 : index
  %M = memref.dim %A, %c1 : memref<?x?xf32>
  %K = memref.dim %A, %c0 : memref<?x?xf32>
  %N = memref.dim %B, %c0 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<16x64xf32, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x16xf32, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%k0, %m0] to %As : memref<?x?xf32> to memref<16x64xf32, #tile.scope<shared>>
      tile.copy %B[%n0, %k0] to %Bs : memref<?x?xf32> to memref<64x16xf32, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_a, transpose_b} : memref<16x64xf32, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

// Runs the four transpose combinations on one set of inputs (A [M, K],
// B [K, N], At [K, M], Bt [N, K]) in one call.
func.func @gemm_f32_all(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %At: memref<?x?xf32>, %Bt: memref<?x?xf32>, %C0: memref<?x?xf32>, %C1: memref<?x?xf32>, %C2: memref<?x?xf32>, %C3: memref<?x?xf32>) {
  call @gemm_f32_nn(%A, %B, %C0) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @gemm_f32_tn(%At, %B, %C1) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @gemm_f32_nt(%A, %Bt, %C2) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @gemm_f32_tt(%At, %Bt, %C3) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}
