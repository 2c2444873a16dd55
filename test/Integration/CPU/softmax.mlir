// Row softmax of X [M, N] (of 4 X): one block per 64 rows, the whole row in
// one tile; reduce max, parallel exp(x - max), reduce sum, parallel divide.
// M is not a multiple of 64 (the last block's extra rows are padded and never
// stored). One call of @softmax_all runs three problems.
//
// @softmax_f32 (0, 1): N = 128, exactly the tile width, M = 200.
// @softmax_f16 (2, 3 and 4, 5): f16 in and out, f32 inside, N < 128: the copy
// pads the missing columns with -inf (pad = 0xFC00 : f16), so that they add
// exp(-inf) = 0 to the sums; [130, 100] and [1, 7].
//
// RUN: tile-run %s --entry=softmax_all --seed=1 \
// RUN:   --arg=f32:200x128 --arg=f32:200x128:poison \
// RUN:   --arg=f16:130x100 --arg=f16:130x100:poison \
// RUN:   --arg=f16:1x7 --arg=f16:1x7:poison --save=%t
// RUN: %python %S/check.py %t --out 1 --ref "softmax(in0 * 4)" --rtol 1e-5 --atol 1e-7 | FileCheck %s --check-prefix=F32
// RUN: %python %S/check.py %t --out 3 --ref "softmax(in2 * 4)" --out 5 --ref "softmax(in4 * 4)" \
// RUN:   --rtol 1e-3 --atol 1e-5 | FileCheck %s --check-prefix=F16

// F32: out1: ok
// F16: out3: ok
// F16: out5: ok

func.func @softmax_f32(%X: memref<?x128xf32>, %O: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %X, %c0 : memref<?x128xf32>
  %g = arith.ceildivui %M, %c64 : index
  tile.kernel (%bx) in (%g) threads(128) {
    %S = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    %mx = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %sm = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %bx, %c64 : index
    tile.copy %X[%m0, 0] to %S : memref<?x128xf32> to memref<64x128xf32, #tile.scope<fragment>>
    // Sharpen the distribution: x * 4 (a realistic "scale" step).
    tile.parallel (%i, %j) in (64, 128) {
      %c4 = arith.constant 4.0 : f32
      %x = memref.load %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      %y = arith.mulf %x, %c4 : f32
      memref.store %y, %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
    }
    tile.reduce max %S into %mx dim = 1 : memref<64x128xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 128) {
      %x = memref.load %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      %m = memref.load %mx[%i] : memref<64xf32, #tile.scope<fragment>>
      %d = arith.subf %x, %m : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
    }
    tile.reduce sum %S into %sm dim = 1 : memref<64x128xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 128) {
      %e = memref.load %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      %s = memref.load %sm[%i] : memref<64xf32, #tile.scope<fragment>>
      %p = arith.divf %e, %s : f32
      memref.store %p, %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
    }
    tile.copy %S to %O[%m0, 0] : memref<64x128xf32, #tile.scope<fragment>> to memref<?x128xf32>
  }
  return
}

func.func @softmax_f16(%X: memref<?x?xf16>, %O: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %X, %c0 : memref<?x?xf16>
  %g = arith.ceildivui %M, %c64 : index
  tile.kernel (%bx) in (%g) threads(128) {
    %Xs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %S = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    %mx = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %sm = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %bx, %c64 : index
    tile.copy %X[%m0, 0] to %Xs {pad = 0xFC00 : f16} : memref<?x?xf16> to memref<64x128xf16, #tile.scope<shared>>
    // f16 -> f32 in the copy.
    tile.copy %Xs to %S : memref<64x128xf16, #tile.scope<shared>> to memref<64x128xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 128) {
      %c4 = arith.constant 4.0 : f32
      %x = memref.load %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      %y = arith.mulf %x, %c4 : f32
      memref.store %y, %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
    }
    tile.reduce max %S into %mx dim = 1 : memref<64x128xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 128) {
      %x = memref.load %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      %m = memref.load %mx[%i] : memref<64xf32, #tile.scope<fragment>>
      %d = arith.subf %x, %m : f32
      %e = math.exp %d : f32
      memref.store %e, %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
    }
    tile.reduce sum %S into %sm dim = 1 : memref<64x128xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 128) {
      %e = memref.load %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      %s = memref.load %sm[%i] : memref<64xf32, #tile.scope<fragment>>
      %p = arith.divf %e, %s : f32
      memref.store %p, %S[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
    }
    tile.copy %S to %O[%m0, 0] : memref<64x128xf32, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

func.func @softmax_all(%X0: memref<?x128xf32>, %O0: memref<?x128xf32>,
    %X1: memref<?x?xf16>, %O1: memref<?x?xf16>, %X2: memref<?x?xf16>, %O2: memref<?x?xf16>) {
  call @softmax_f32(%X0, %O0) : (memref<?x128xf32>, memref<?x128xf32>) -> ()
  call @softmax_f16(%X1, %O1) : (memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @softmax_f16(%X2, %O2) : (memref<?x?xf16>, memref<?x?xf16>) -> ()
  return
}
