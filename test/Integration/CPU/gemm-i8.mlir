// GEMM i8 x i8 -> i32 (integers in [-8, 8], compared exactly), all four
// transpose combinations, 64x64x32 tiles: 200x328x136 and 1x257x95 (MxNxK)
// hang over the tile edges, 128x128x64 is a multiple of the tiles.
// One call of @gemm_i8_all runs the four kernels on the 3 shapes (one
// compilation); shape s has arguments 8s .. 8s + 7: A [M, K], B [K, N],
// At [K, M], Bt [N, K], then the outputs of nn, tn, nt, tt.
// RUN: tile-run %s --entry=gemm_i8_all --seed=1 \
// RUN:   --arg=i8:200x136 --arg=i8:136x328 --arg=i8:136x200 --arg=i8:328x136 --arg=i32:200x328:poison --arg=i32:200x328:poison --arg=i32:200x328:poison --arg=i32:200x328:poison \
// RUN:   --arg=i8:1x95 --arg=i8:95x257 --arg=i8:95x1 --arg=i8:257x95 --arg=i32:1x257:poison --arg=i32:1x257:poison --arg=i32:1x257:poison --arg=i32:1x257:poison \
// RUN:   --arg=i8:128x64 --arg=i8:64x128 --arg=i8:64x128 --arg=i8:128x64 --arg=i32:128x128:poison --arg=i32:128x128:poison --arg=i32:128x128:poison --arg=i32:128x128:poison \
// RUN:   --save=%t
// RUN: %python %S/check.py %t \
// RUN:   --out 4 --ref "in0 @ in1" \
// RUN:   --out 5 --ref "in2.T @ in1" \
// RUN:   --out 6 --ref "in0 @ in3.T" \
// RUN:   --out 7 --ref "in2.T @ in3.T" \
// RUN:   --out 12 --ref "in8 @ in9" \
// RUN:   --out 13 --ref "in10.T @ in9" \
// RUN:   --out 14 --ref "in8 @ in11.T" \
// RUN:   --out 15 --ref "in10.T @ in11.T" \
// RUN:   --out 20 --ref "in16 @ in17" \
// RUN:   --out 21 --ref "in18.T @ in17" \
// RUN:   --out 22 --ref "in16 @ in19.T" \
// RUN:   --out 23 --ref "in18.T @ in19.T" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s --check-prefix=G0

// G0: out4: ok
// G0: out5: ok
// G0: out6: ok
// G0: out7: ok
// G0: out12: ok
// G0: out13: ok
// G0: out14: ok
// G0: out15: ok
// G0: out20: ok
// G0: out21: ok
// G0: out22: ok
// G0: out23: ok

func.func @gemm_i8_nn(%A: memref<?x?xi8>, %B: memref<?x?xi8>, %C: memref<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 64 : index
  %cBN = arith.constant 64 : index
  %cBK = arith.constant 32 : index
  %M = memref.dim %A, %c0 : memref<?x?xi8>
  %K = memref.dim %A, %c1 : memref<?x?xi8>
  %N = memref.dim %B, %c1 : memref<?x?xi8>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<64x32xi8, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x64xi8, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xi32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xi8> to memref<64x32xi8, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<?x?xi8> to memref<32x64xi8, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xi8, #tile.scope<shared>>, memref<32x64xi8, #tile.scope<shared>>, memref<64x64xi32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xi32, #tile.scope<fragment>> to memref<?x?xi32>
  }
  return
}

func.func @gemm_i8_tn(%A: memref<?x?xi8>, %B: memref<?x?xi8>, %C: memref<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 64 : index
  %cBN = arith.constant 64 : index
  %cBK = arith.constant 32 : index
  %M = memref.dim %A, %c1 : memref<?x?xi8>
  %K = memref.dim %A, %c0 : memref<?x?xi8>
  %N = memref.dim %B, %c1 : memref<?x?xi8>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<32x64xi8, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x64xi8, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xi32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%k0, %m0] to %As : memref<?x?xi8> to memref<32x64xi8, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<?x?xi8> to memref<32x64xi8, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_a} : memref<32x64xi8, #tile.scope<shared>>, memref<32x64xi8, #tile.scope<shared>>, memref<64x64xi32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xi32, #tile.scope<fragment>> to memref<?x?xi32>
  }
  return
}

func.func @gemm_i8_nt(%A: memref<?x?xi8>, %B: memref<?x?xi8>, %C: memref<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 64 : index
  %cBN = arith.constant 64 : index
  %cBK = arith.constant 32 : index
  %M = memref.dim %A, %c0 : memref<?x?xi8>
  %K = memref.dim %A, %c1 : memref<?x?xi8>
  %N = memref.dim %B, %c0 : memref<?x?xi8>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<64x32xi8, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x32xi8, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xi32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xi8> to memref<64x32xi8, #tile.scope<shared>>
      tile.copy %B[%n0, %k0] to %Bs : memref<?x?xi8> to memref<64x32xi8, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x32xi8, #tile.scope<shared>>, memref<64x32xi8, #tile.scope<shared>>, memref<64x64xi32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xi32, #tile.scope<fragment>> to memref<?x?xi32>
  }
  return
}

func.func @gemm_i8_tt(%A: memref<?x?xi8>, %B: memref<?x?xi8>, %C: memref<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cBM = arith.constant 64 : index
  %cBN = arith.constant 64 : index
  %cBK = arith.constant 32 : index
  %M = memref.dim %A, %c1 : memref<?x?xi8>
  %K = memref.dim %A, %c0 : memref<?x?xi8>
  %N = memref.dim %B, %c0 : memref<?x?xi8>
  %gx = arith.ceildivui %N, %cBN : index
  %gy = arith.ceildivui %M, %cBM : index
  %kt = arith.ceildivui %K, %cBK : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<32x64xi8, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x32xi8, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xi32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xi32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %cBM : index
    %n0 = arith.muli %bx, %cBN : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %cBK : index
      tile.copy %A[%k0, %m0] to %As : memref<?x?xi8> to memref<32x64xi8, #tile.scope<shared>>
      tile.copy %B[%n0, %k0] to %Bs : memref<?x?xi8> to memref<64x32xi8, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_a, transpose_b} : memref<32x64xi8, #tile.scope<shared>>, memref<64x32xi8, #tile.scope<shared>>, memref<64x64xi32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xi32, #tile.scope<fragment>> to memref<?x?xi32>
  }
  return
}

// Runs the four transpose combinations on 3 problems in one call (one
// compilation): problem s has arguments 8s .. 8s + 7: A [M, K], B [K, N],
// At [K, M], Bt [N, K], then the outputs of nn, tn, nt, tt.
func.func @gemm_i8_all(%A0: memref<?x?xi8>,
    %B0: memref<?x?xi8>,
    %At0: memref<?x?xi8>,
    %Bt0: memref<?x?xi8>,
    %C0_0: memref<?x?xi32>,
    %C0_1: memref<?x?xi32>,
    %C0_2: memref<?x?xi32>,
    %C0_3: memref<?x?xi32>,
    %A1: memref<?x?xi8>,
    %B1: memref<?x?xi8>,
    %At1: memref<?x?xi8>,
    %Bt1: memref<?x?xi8>,
    %C1_0: memref<?x?xi32>,
    %C1_1: memref<?x?xi32>,
    %C1_2: memref<?x?xi32>,
    %C1_3: memref<?x?xi32>,
    %A2: memref<?x?xi8>,
    %B2: memref<?x?xi8>,
    %At2: memref<?x?xi8>,
    %Bt2: memref<?x?xi8>,
    %C2_0: memref<?x?xi32>,
    %C2_1: memref<?x?xi32>,
    %C2_2: memref<?x?xi32>,
    %C2_3: memref<?x?xi32>) {
  call @gemm_i8_nn(%A0, %B0, %C0_0) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_tn(%At0, %B0, %C0_1) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_nt(%A0, %Bt0, %C0_2) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_tt(%At0, %Bt0, %C0_3) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_nn(%A1, %B1, %C1_0) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_tn(%At1, %B1, %C1_1) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_nt(%A1, %Bt1, %C1_2) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_tt(%At1, %Bt1, %C1_3) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_nn(%A2, %B2, %C2_0) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_tn(%At2, %B2, %C2_1) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_nt(%A2, %Bt2, %C2_2) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  call @gemm_i8_tt(%At2, %Bt2, %C2_3) : (memref<?x?xi8>, memref<?x?xi8>, memref<?x?xi32>) -> ()
  return
}
