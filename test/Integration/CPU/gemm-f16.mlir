// GEMM with f16 inputs and f32 accumulation in a fragment, all four
// transpose combinations (A stored [K, M] for transpose_a, B stored [N, K]
// for transpose_b); nn / tn store f16, nt / tt store f32. 128x128x32
// tiles: 200x328x136 and 1x257x95 (MxNxK) hang over the tile edges,
// 256x384x64 is a multiple of the tiles.
// One call of @gemm_f16_all runs the four kernels on the 3 shapes (one
// compilation); shape s has arguments 8s .. 8s + 7: A [M, K], B [K, N],
// At [K, M], Bt [N, K], then the outputs of nn, tn, nt, tt.
// RUN: tile-run %s --entry=gemm_f16_all --seed=1 \
// RUN:   --arg=f16:200x136 --arg=f16:136x328 --arg=f16:136x200 --arg=f16:328x136 --arg=f16:200x328:poison --arg=f16:200x328:poison --arg=f32:200x328:poison --arg=f32:200x328:poison \
// RUN:   --arg=f16:1x95 --arg=f16:95x257 --arg=f16:95x1 --arg=f16:257x95 --arg=f16:1x257:poison --arg=f16:1x257:poison --arg=f32:1x257:poison --arg=f32:1x257:poison \
// RUN:   --arg=f16:256x64 --arg=f16:64x384 --arg=f16:64x256 --arg=f16:384x64 --arg=f16:256x384:poison --arg=f16:256x384:poison --arg=f32:256x384:poison --arg=f32:256x384:poison \
// RUN:   --save=%t
// RUN: %python %S/check.py %t \
// RUN:   --out 4 --ref "in0 @ in1" \
// RUN:   --out 5 --ref "in2.T @ in1" \
// RUN:   --out 12 --ref "in8 @ in9" \
// RUN:   --out 13 --ref "in10.T @ in9" \
// RUN:   --out 20 --ref "in16 @ in17" \
// RUN:   --out 21 --ref "in18.T @ in17" \
// RUN:   --rtol 0.001 --atol 0.001 | FileCheck %s --check-prefix=G0
// RUN: %python %S/check.py %t \
// RUN:   --out 6 --ref "in0 @ in3.T" \
// RUN:   --out 7 --ref "in2.T @ in3.T" \
// RUN:   --out 14 --ref "in8 @ in11.T" \
// RUN:   --out 15 --ref "in10.T @ in11.T" \
// RUN:   --out 22 --ref "in16 @ in19.T" \
// RUN:   --out 23 --ref "in18.T @ in19.T" \
// RUN:   --rtol 0.0001 --atol 0.0001 | FileCheck %s --check-prefix=G1

// G0: out4: ok
// G0: out5: ok
// G0: out12: ok
// G0: out13: ok
// G0: out20: ok
// G0: out21: ok
// G1: out6: ok
// G1: out7: ok
// G1: out14: ok
// G1: out15: ok
// G1: out22: ok
// G1: out23: ok

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

// Runs the four transpose combinations on 3 problems in one call (one
// compilation): problem s has arguments 8s .. 8s + 7: A [M, K], B [K, N],
// At [K, M], Bt [N, K], then the outputs of nn, tn, nt, tt.
func.func @gemm_f16_all(%A0: memref<?x?xf16>,
    %B0: memref<?x?xf16>,
    %At0: memref<?x?xf16>,
    %Bt0: memref<?x?xf16>,
    %C0_0: memref<?x?xf16>,
    %C0_1: memref<?x?xf16>,
    %C0_2: memref<?x?xf32>,
    %C0_3: memref<?x?xf32>,
    %A1: memref<?x?xf16>,
    %B1: memref<?x?xf16>,
    %At1: memref<?x?xf16>,
    %Bt1: memref<?x?xf16>,
    %C1_0: memref<?x?xf16>,
    %C1_1: memref<?x?xf16>,
    %C1_2: memref<?x?xf32>,
    %C1_3: memref<?x?xf32>,
    %A2: memref<?x?xf16>,
    %B2: memref<?x?xf16>,
    %At2: memref<?x?xf16>,
    %Bt2: memref<?x?xf16>,
    %C2_0: memref<?x?xf16>,
    %C2_1: memref<?x?xf16>,
    %C2_2: memref<?x?xf32>,
    %C2_3: memref<?x?xf32>) {
  call @gemm_f16_nn(%A0, %B0, %C0_0) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @gemm_f16_tn(%At0, %B0, %C0_1) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @gemm_f16_nt(%A0, %Bt0, %C0_2) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  call @gemm_f16_tt(%At0, %Bt0, %C0_3) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  call @gemm_f16_nn(%A1, %B1, %C1_0) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @gemm_f16_tn(%At1, %B1, %C1_1) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @gemm_f16_nt(%A1, %Bt1, %C1_2) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  call @gemm_f16_tt(%At1, %Bt1, %C1_3) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  call @gemm_f16_nn(%A2, %B2, %C2_0) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @gemm_f16_tn(%At2, %B2, %C2_1) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @gemm_f16_nt(%A2, %Bt2, %C2_2) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  call @gemm_f16_tt(%At2, %Bt2, %C2_3) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  return
}
