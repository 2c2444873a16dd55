// GEMM with f16 inputs and f32 accumulation in a fragment, all four
// transpose combinations (A stored [K, M] for transpose_a, B stored [N, K]
// for transpose_b); nn / tn store f16, nt / tt store f32. 128x128x32
// tiles: 200x328x136 and 1x257x95 (MxNxK) hang over the tile edges,
// 256x384x64 is a multiple of the tiles.
// RUN: tile-run %s --entry=gemm_f16_all --seed=1 --arg=f16:200x136 --arg=f16:136x328 --arg=f16:136x200 --arg=f16:328x136 --arg=f16:200x328:poison --arg=f16:200x328:poison --arg=f32:200x328:poison --arg=f32:200x328:poison --save=%t.0
// RUN: %python %S/check.py %t.0 --out 4 --ref "in0 @ in1" --out 5 --ref "in2.T @ in1" --rtol 0.001 --atol 0.001 | FileCheck %s --check-prefix=G0
// RUN: %python %S/check.py %t.0 --out 6 --ref "in0 @ in3.T" --out 7 --ref "in2.T @ in3.T" --rtol 0.0001 --atol 0.0001 | FileCheck %s --check-prefix=G1
// RUN: tile-run %s --entry=gemm_f16_all --seed=2 --arg=f16:1x95 --arg=f16:95x257 --arg=f16:95x1 --arg=f16:257x95 --arg=f16:1x257:poison --arg=f16:1x257:poison --arg=f32:1x257:poison --arg=f32:1x257:poison --save=%t.1
// RUN: %python %S/check.py %t.1 --out 4 --ref "in0 @ in1" --out 5 --ref "in2.T @ in1" --rtol 0.001 --atol 0.001 | FileCheck %s --check-prefix=G0
// RUN: %python %S/check.py %t.1 --out 6 --ref "in0 @ in3.T" --out 7 --ref "in2.T @ in3.T" --rtol 0.0001 --atol 0.0001 | FileCheck %s --check-prefix=G1
// RUN: tile-run %s --entry=gemm_f16_all --seed=3 --arg=f16:256x64 --arg=f16:64x384 --arg=f16:64x256 --arg=f16:384x64 --arg=f16:256x384:poison --arg=f16:256x384:poison --arg=f32:256x384:poison --arg=f32:256x384:poison --save=%t.2
// RUN: %python %S/check.py %t.2 --out 4 --ref "in0 @ in1" --out 5 --ref "in2.T @ in1" --rtol 0.001 --atol 0.001 | FileCheck %s --check-prefix=G0
// RUN: %python %S/check.py %t.2 --out 6 --ref "in0 @ in3.T" --out 7 --ref "in2.T @ in3.T" --rtol 0.0001 --atol 0.0001 | FileCheck %s --check-prefix=G1

// G0: out4: ok
// G0: out5: ok
// G1: out6: ok
// G1: out7: ok

func.func @gemm_f16_nn(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 128 : index
  %cBN = arith.constant 128 : index
  %cBK = arith.constant 32 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x128xf32, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

func.func @gemm_f16_tn(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 128 : index
  %cBN = arith.constant 128 : index
  %cBK = arith.constant 32 : index
  %M = memref.dim %A, %c1 : memref<?x?xf16>
  %K = memref.dim %A, %c0 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%k0, %m0] to %As : memref<?x?xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_a} : memref<32x128xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x128xf32, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

func.func @gemm_f16_nt(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 128 : index
  %cBN = arith.constant 128 : index
  %cBK = arith.constant 32 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %N = memref.dim %B, %c0 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%n0, %k0] to %Bs : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x32xf16, #tile.scope<shared>>, memref<128x32xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x128xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @gemm_f16_tt(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 128 : index
  %cBN = arith.constant 128 : index
  %cBK = arith.constant 32 : index
  %M = memref.dim %A, %c1 : memref<?x?xf16>
  %K = memref.dim %A, %c0 : memref<?x?xf16>
  %N = memref.dim %B, %c0 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%k0, %m0] to %As : memref<?x?xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.copy %B[%n0, %k0] to %Bs : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_a, transpose_b} : memref<32x128xf16, #tile.scope<shared>>, memref<128x32xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x128xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

// Runs the four transpose combinations on one set of inputs (A [M, K],
// B [K, N], At [K, M], Bt [N, K]) in one call.
func.func @gemm_f16_all(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %At: memref<?x?xf16>, %Bt: memref<?x?xf16>, %C0: memref<?x?xf16>, %C1: memref<?x?xf16>, %C2: memref<?x?xf32>, %C3: memref<?x?xf32>) {
  call @gemm_f16_nn(%A, %B, %C0) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @gemm_f16_tn(%At, %B, %C1) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @gemm_f16_nt(%A, %Bt, %C2) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  call @gemm_f16_tt(%At, %Bt, %C3) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  return
}
