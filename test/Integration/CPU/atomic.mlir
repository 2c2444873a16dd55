// tile.atomic_add: several blocks adding into one output. One call of
// @atomic_all runs every kernel (argument numbers in parentheses).
//
// @splitk (0 - 2): split-K GEMM, C += A @ B: the grid's z dim splits the K
// tiles 4 ways (block z takes tiles z, z + 4, ...); each block adds its
// partial 64x64 tile into C (which holds random data before: expect
// C + A @ B). Edge tiles hang over C: their extra elements are dropped.
//
// @colsum (3, 4): column sums: each block reduces its 32x64 tile over the
// rows and atomically adds the 64 partial sums into out[N] (zero before).
//
// @hist (5 - 7): scalar atomics inside tile.parallel (under a bounds check):
// a histogram of the values of A (integers in [-8, 8]) per block in shared
// memory, added to the global one with a tile atomic; and the sum of all
// values, one scalar f32 atomic per element straight into global memory.
//
// RUN: tile-run %s --entry=atomic_all --seed=1 \
// RUN:   --arg=f16:100x200 --arg=f16:200x70 --arg=f32:100x70 \
// RUN:   --arg=f32:150x100 --arg=f32:100:zero \
// RUN:   --arg=i32:150x100 --arg=i32:17:zero --arg=f32:1:zero --save=%t
// RUN: %python %S/check.py %t --out 2 --ref "in2 + in0 @ in1" \
// RUN:   --out 4 --ref "in3.sum(0)" --rtol 1e-4 --atol 1e-4 | FileCheck %s --check-prefix=FLOAT
// RUN: %python %S/check.py %t --out 6 --ref "np.bincount((in5 + 8).astype(int).ravel(), minlength=17)" \
// RUN:   --out 7 --ref "[in5.sum()]" --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXACT

// FLOAT: out2: ok
// FLOAT: out4: ok
// EXACT: out6: ok
// EXACT: out7: ok

func.func @splitk(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c64 : index
  %kt = arith.ceildivui %K, %c32 : index
  tile.kernel (%bx, %by, %bz) in (%gx, %gy, 4) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.pipelined %k = %bz to %kt step %c4 num_stages = 2 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<?x?xf16> to memref<32x64xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.atomic_add %C[%m0, %n0], %Cf : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

func.func @colsum(%A: memref<?x?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %N = memref.dim %A, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c32 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %Af = tile.alloc_fragment : memref<32x64xf32, #tile.scope<fragment>>
    %s = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c32 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %A[%m0, %n0] to %Af : memref<?x?xf32> to memref<32x64xf32, #tile.scope<fragment>>
    tile.reduce sum %Af into %s dim = 0 : memref<32x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.atomic_add %out[%n0], %s : memref<?xf32>, memref<64xf32, #tile.scope<fragment>>
  }
  return
}

func.func @hist(%A: memref<?x?xi32>, %hist: memref<17xi32>, %total: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xi32>
  %N = memref.dim %A, %c1 : memref<?x?xi32>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c32 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %Af = tile.alloc_fragment : memref<32x64xi32, #tile.scope<fragment>>
    %Hs = tile.alloc_shared : memref<17xi32, #tile.scope<shared>>
    tile.clear %Hs : memref<17xi32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %A[%m0, %n0] to %Af : memref<?x?xi32> to memref<32x64xi32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 64) {
      %one = arith.constant 1 : i32
      %eight = arith.constant 8 : i32
      %gi = arith.addi %m0, %i : index
      %gj = arith.addi %n0, %j : index
      %okm = arith.cmpi ult, %gi, %M : index
      %okn = arith.cmpi ult, %gj, %N : index
      %ok = arith.andi %okm, %okn : i1
      scf.if %ok {
        %v = memref.load %Af[%i, %j] : memref<32x64xi32, #tile.scope<fragment>>
        %b = arith.addi %v, %eight : i32
        %bi = arith.index_cast %b : i32 to index
        tile.atomic_add %Hs[%bi], %one : memref<17xi32, #tile.scope<shared>>, i32
        %vf = arith.sitofp %v : i32 to f32
        tile.atomic_add %total[0], %vf : memref<1xf32>, f32
      }
    }
    tile.atomic_add %hist[0], %Hs : memref<17xi32>, memref<17xi32, #tile.scope<shared>>
  }
  return
}

func.func @atomic_all(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>,
    %X: memref<?x?xf32>, %colsum: memref<?xf32>,
    %I: memref<?x?xi32>, %hist: memref<17xi32>, %total: memref<1xf32>) {
  call @splitk(%A, %B, %C) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>) -> ()
  call @colsum(%X, %colsum) : (memref<?x?xf32>, memref<?xf32>) -> ()
  call @hist(%I, %hist, %total) : (memref<?x?xi32>, memref<17xi32>, memref<1xf32>) -> ()
  return
}
