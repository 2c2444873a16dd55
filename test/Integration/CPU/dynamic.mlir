// Dynamic shapes: memref<?x?xf16> arguments, the grid and loop bounds
// computed from memref.dim, and index scalar arguments (tile-run
// --arg=i64:N). One call of @dynamic_all runs four problems (argument
// numbers in parentheses; the scalars are the last four arguments).
//
// @gemm_k (0 - 2 with K = 95, 3 - 5 with K = 40): C = A[:, :K] @ B[:K, :] for
// a scalar K up to A's and B's extents: the kernel copies from subviews of A
// and B (strided, dynamic layouts) whose extent is K, so the tiles past K are
// padded with zeros.
// @shift_rows (6, 7 with s = 5, 8, 9 with s = -7): O[i, j] = A[i + s, j] (0
// past either end of A), s a scalar.
//
// RUN: tile-run %s --entry=dynamic_all --seed=1 \
// RUN:   --arg=f16:200x136 --arg=f16:136x328 --arg=f32:200x328:poison \
// RUN:   --arg=f16:70x40 --arg=f16:40x33 --arg=f32:70x33:poison \
// RUN:   --arg=f16:150x90 --arg=f16:150x90:poison --arg=f16:150x90 --arg=f16:150x90:poison \
// RUN:   --arg=i64:95 --arg=i64:40 --arg=i64:5 --arg=i64:-7 --save=%t
// RUN: %python %S/check.py %t --out 2 --ref "in0[:, :95] @ in1[:95, :]" --out 5 --ref "in3 @ in4" \
// RUN:   --rtol 1e-4 --atol 1e-4 | FileCheck %s --check-prefix=GEMM
// RUN: %python %S/check.py %t --out 7 --ref "np.pad(in6[5:], ((0, 5), (0, 0)))" \
// RUN:   --out 9 --ref "np.pad(in8[:-7], ((7, 0), (0, 0)))" --rtol 0 --atol 0 | FileCheck %s --check-prefix=SHIFT

// GEMM: out2: ok
// GEMM: out5: ok
// SHIFT: out7: ok
// SHIFT: out9: ok

func.func @gemm_k(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %K: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %Ak = memref.subview %A[0, 0] [%M, %K] [1, 1] : memref<?x?xf16> to memref<?x?xf16, strided<[?, 1]>>
  %Bk = memref.subview %B[0, 0] [%K, %N] [1, 1] : memref<?x?xf16> to memref<?x?xf16, strided<[?, 1]>>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c64 : index
  %kt = arith.ceildivui %K, %c32 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %Ak[%m0, %k0] to %As : memref<?x?xf16, strided<[?, 1]>> to memref<64x32xf16, #tile.scope<shared>>
      tile.copy %Bk[%k0, %n0] to %Bs : memref<?x?xf16, strided<[?, 1]>> to memref<32x64xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @shift_rows(%A: memref<?x?xf16>, %O: memref<?x?xf16>, %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %O, %c0 : memref<?x?xf16>
  %N = memref.dim %O, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c64 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %t = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    %am = arith.addi %m0, %s : index
    tile.copy %A[%am, %n0] to %t : memref<?x?xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.copy %t to %O[%m0, %n0] : memref<64x64xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

func.func @dynamic_all(%A0: memref<?x?xf16>, %B0: memref<?x?xf16>, %C0: memref<?x?xf32>, %A1: memref<?x?xf16>, %B1: memref<?x?xf16>, %C1: memref<?x?xf32>,
    %S0: memref<?x?xf16>, %O0: memref<?x?xf16>, %S1: memref<?x?xf16>, %O1: memref<?x?xf16>,
    %k0: index, %k1: index, %s0: index, %s1: index) {
  call @gemm_k(%A0, %B0, %C0, %k0) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>, index) -> ()
  call @gemm_k(%A1, %B1, %C1, %k1) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>, index) -> ()
  call @shift_rows(%S0, %O0, %s0) : (memref<?x?xf16>, memref<?x?xf16>, index) -> ()
  call @shift_rows(%S1, %O1, %s1) : (memref<?x?xf16>, memref<?x?xf16>, index) -> ()
  return
}
