// Element-wise tile.parallel on fragment buffers (memref.load / store in the
// body, arith and math ops), on 64x64 tiles with edge tiles (shapes not
// multiples of 64), and the block and loop indices used in the body. One call
// of @parallel_all runs every kernel (argument numbers in parentheses).
//
// @relu (0 - 2 on [200, 130], 3 - 5 on [1, 65]): C = relu(A * 2 + B), f32.
// @math_f16 (6 - 8): f16 in and out, computed in f32 in the body:
//   C = exp(a) * tanh(b) + sqrt(|a|) - (a < b ? a : b) / (1 + b * b)
// @iota (9, 10): C[i, j] = A[i, j] + 1000 * i + j + s[j], with global indices
// from the block and parallel indices, and a 1-d tile.parallel computing
// s[j] = 0.5 * j into a local buffer.
//
// RUN: tile-run %s --entry=parallel_all --seed=1 \
// RUN:   --arg=f32:200x130 --arg=f32:200x130 --arg=f32:200x130:poison \
// RUN:   --arg=f32:1x65 --arg=f32:1x65 --arg=f32:1x65:poison \
// RUN:   --arg=f16:130x77 --arg=f16:130x77 --arg=f16:130x77:poison \
// RUN:   --arg=f32:150x100 --arg=f32:150x100:poison --save=%t
// RUN: %python %S/check.py %t --out 2 --ref "np.maximum(in0 * 2 + in1, 0)" \
// RUN:   --out 5 --ref "np.maximum(in3 * 2 + in4, 0)" \
// RUN:   --out 10 --ref "in9 + 1000 * np.arange(150)[:, None] + 1.5 * np.arange(100)[None, :]" \
// RUN:   --rtol 1e-6 --atol 1e-6 | FileCheck %s --check-prefix=F32
// RUN: %python %S/check.py %t --out 8 \
// RUN:   --ref "np.exp(in6) * np.tanh(in7) + np.sqrt(np.abs(in6)) - np.minimum(in6, in7) / (1 + in7 * in7)" \
// RUN:   --rtol 2e-3 --atol 2e-3 | FileCheck %s --check-prefix=F16

// F32: out2: ok
// F32: out5: ok
// F32: out10: ok
// F16: out8: ok

func.func @relu(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %N = memref.dim %A, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c64 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %Af = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %Bf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %A[%m0, %n0] to %Af : memref<?x?xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %B[%m0, %n0] to %Bf : memref<?x?xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %two = arith.constant 2.0 : f32
      %zero = arith.constant 0.0 : f32
      %a = memref.load %Af[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %b = memref.load %Bf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %a2 = arith.mulf %a, %two : f32
      %s = arith.addf %a2, %b : f32
      %r = arith.maximumf %s, %zero : f32
      memref.store %r, %Cf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @math_f16(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %N = memref.dim %A, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c64 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Bf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %Cf = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %A[%m0, %n0] to %As : memref<?x?xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.copy %B[%m0, %n0] to %Bf : memref<?x?xf16> to memref<64x64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %one = arith.constant 1.0 : f32
      %ah = memref.load %As[%i, %j] : memref<64x64xf16, #tile.scope<shared>>
      %a = arith.extf %ah : f16 to f32
      %b = memref.load %Bf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %e = math.exp %a : f32
      %t = math.tanh %b : f32
      %et = arith.mulf %e, %t : f32
      %abs = math.absf %a : f32
      %sq = math.sqrt %abs : f32
      %x = arith.addf %et, %sq : f32
      %lt = arith.cmpf olt, %a, %b : f32
      %mn = arith.select %lt, %a, %b : f32
      %bb = arith.mulf %b, %b : f32
      %den = arith.addf %bb, %one : f32
      %q = arith.divf %mn, %den : f32
      %y = arith.subf %x, %q : f32
      %yh = arith.truncf %y : f32 to f16
      memref.store %yh, %Cf[%i, %j] : memref<64x64xf16, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x64xf16, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

func.func @iota(%A: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %N = memref.dim %A, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c64 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %Af = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %s = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %A[%m0, %n0] to %Af : memref<?x?xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.parallel (%j) in (64) {
      %half = arith.constant 0.5 : f32
      %gj = arith.addi %n0, %j : index
      %gji = arith.index_cast %gj : index to i64
      %gjf = arith.sitofp %gji : i64 to f32
      %v = arith.mulf %gjf, %half : f32
      memref.store %v, %s[%j] : memref<64xf32, #tile.scope<local>>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %c1000 = arith.constant 1000 : index
      %gi = arith.addi %m0, %i : index
      %gj = arith.addi %n0, %j : index
      %ri = arith.muli %gi, %c1000 : index
      %idx = arith.addi %ri, %gj : index
      %idxi = arith.index_cast %idx : index to i64
      %f = arith.sitofp %idxi : i64 to f32
      %a = memref.load %Af[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %sj = memref.load %s[%j] : memref<64xf32, #tile.scope<local>>
      %x = arith.addf %a, %f : f32
      %y = arith.addf %x, %sj : f32
      memref.store %y, %Af[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %Af to %C[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @parallel_all(%A0: memref<?x?xf32>, %B0: memref<?x?xf32>, %C0: memref<?x?xf32>, %A1: memref<?x?xf32>, %B1: memref<?x?xf32>, %C1: memref<?x?xf32>,
    %A2: memref<?x?xf16>, %B2: memref<?x?xf16>, %C2: memref<?x?xf16>, %A3: memref<?x?xf32>, %C3: memref<?x?xf32>) {
  call @relu(%A0, %B0, %C0) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @relu(%A1, %B1, %C1) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @math_f16(%A2, %B2, %C2) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>) -> ()
  call @iota(%A3, %C3) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}
