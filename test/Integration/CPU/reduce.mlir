// tile.reduce of each kind (sum, max, min, abssum, absmax) along both dims
// of a 32x48 tile, with clear (the default: the target is overwritten) and
// without (the result is combined with the target, initialized from global
// inputs I1 / I0). A [128, 48] is split into 4 blocks of 32 rows; the
// dim-1 results are the rows' reductions ([128]), the dim-0 results each
// block's column reductions ([4, 48]). Source and target scopes vary
// (fragment, shared, local). f32 (arguments 0 - 22), and i32 (23 - 45,
// compared exactly); one call of @reduce_all runs all the kernels.
// RUN: tile-run %s --entry=reduce_all --seed=1 \
// RUN:   --arg=f32:128x48 --arg=f32:128:rand --arg=f32:4x48 \
// RUN:   --arg=f32:128:poison --arg=f32:4x48:poison --arg=f32:128:poison --arg=f32:4x48:poison \
// RUN:   --arg=f32:128:poison --arg=f32:4x48:poison --arg=f32:128:poison --arg=f32:4x48:poison \
// RUN:   --arg=f32:128:poison --arg=f32:4x48:poison --arg=f32:128:poison --arg=f32:4x48:poison \
// RUN:   --arg=f32:128:poison --arg=f32:4x48:poison --arg=f32:128:poison --arg=f32:4x48:poison \
// RUN:   --arg=f32:128:poison --arg=f32:4x48:poison --arg=f32:128:poison --arg=f32:4x48:poison \
// RUN:   --arg=i32:128x48 --arg=i32:128:rand --arg=i32:4x48 \
// RUN:   --arg=i32:128:poison --arg=i32:4x48:poison --arg=i32:128:poison --arg=i32:4x48:poison \
// RUN:   --arg=i32:128:poison --arg=i32:4x48:poison --arg=i32:128:poison --arg=i32:4x48:poison \
// RUN:   --arg=i32:128:poison --arg=i32:4x48:poison --arg=i32:128:poison --arg=i32:4x48:poison \
// RUN:   --arg=i32:128:poison --arg=i32:4x48:poison --arg=i32:128:poison --arg=i32:4x48:poison \
// RUN:   --arg=i32:128:poison --arg=i32:4x48:poison --arg=i32:128:poison --arg=i32:4x48:poison \
// RUN:   --save=%t
// RUN: %python %S/check.py %t \
// RUN:   --out 3 --ref "in0.sum(1)" \
// RUN:   --out 4 --ref "in0.reshape(4, 32, 48).sum(1)" \
// RUN:   --out 5 --ref "in1 + in0.sum(1)" \
// RUN:   --out 6 --ref "in2 + in0.reshape(4, 32, 48).sum(1)" \
// RUN:   --out 7 --ref "in0.max(1)" \
// RUN:   --out 8 --ref "in0.reshape(4, 32, 48).max(1)" \
// RUN:   --out 9 --ref "np.maximum(in1, in0.max(1))" \
// RUN:   --out 10 --ref "np.maximum(in2, in0.reshape(4, 32, 48).max(1))" \
// RUN:   --out 11 --ref "in0.min(1)" \
// RUN:   --out 12 --ref "in0.reshape(4, 32, 48).min(1)" \
// RUN:   --out 13 --ref "np.minimum(in1, in0.min(1))" \
// RUN:   --out 14 --ref "np.minimum(in2, in0.reshape(4, 32, 48).min(1))" \
// RUN:   --out 15 --ref "np.abs(in0).sum(1)" \
// RUN:   --out 16 --ref "np.abs(in0.reshape(4, 32, 48)).sum(1)" \
// RUN:   --out 17 --ref "in1 + np.abs(in0).sum(1)" \
// RUN:   --out 18 --ref "in2 + np.abs(in0.reshape(4, 32, 48)).sum(1)" \
// RUN:   --out 19 --ref "np.abs(in0).max(1)" \
// RUN:   --out 20 --ref "np.abs(in0.reshape(4, 32, 48)).max(1)" \
// RUN:   --out 21 --ref "np.maximum(in1, np.abs(in0).max(1))" \
// RUN:   --out 22 --ref "np.maximum(in2, np.abs(in0.reshape(4, 32, 48)).max(1))" \
// RUN:   --rtol 1e-5 --atol 1e-5 | FileCheck %s --check-prefix=F32
// RUN: %python %S/check.py %t \
// RUN:   --out 26 --ref "in23.sum(1)" \
// RUN:   --out 27 --ref "in23.reshape(4, 32, 48).sum(1)" \
// RUN:   --out 28 --ref "in24 + in23.sum(1)" \
// RUN:   --out 29 --ref "in25 + in23.reshape(4, 32, 48).sum(1)" \
// RUN:   --out 30 --ref "in23.max(1)" \
// RUN:   --out 31 --ref "in23.reshape(4, 32, 48).max(1)" \
// RUN:   --out 32 --ref "np.maximum(in24, in23.max(1))" \
// RUN:   --out 33 --ref "np.maximum(in25, in23.reshape(4, 32, 48).max(1))" \
// RUN:   --out 34 --ref "in23.min(1)" \
// RUN:   --out 35 --ref "in23.reshape(4, 32, 48).min(1)" \
// RUN:   --out 36 --ref "np.minimum(in24, in23.min(1))" \
// RUN:   --out 37 --ref "np.minimum(in25, in23.reshape(4, 32, 48).min(1))" \
// RUN:   --out 38 --ref "np.abs(in23).sum(1)" \
// RUN:   --out 39 --ref "np.abs(in23.reshape(4, 32, 48)).sum(1)" \
// RUN:   --out 40 --ref "in24 + np.abs(in23).sum(1)" \
// RUN:   --out 41 --ref "in25 + np.abs(in23.reshape(4, 32, 48)).sum(1)" \
// RUN:   --out 42 --ref "np.abs(in23).max(1)" \
// RUN:   --out 43 --ref "np.abs(in23.reshape(4, 32, 48)).max(1)" \
// RUN:   --out 44 --ref "np.maximum(in24, np.abs(in23).max(1))" \
// RUN:   --out 45 --ref "np.maximum(in25, np.abs(in23.reshape(4, 32, 48)).max(1))" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s --check-prefix=I32

// F32: out3: ok
// F32: out4: ok
// F32: out5: ok
// F32: out6: ok
// F32: out7: ok
// F32: out8: ok
// F32: out9: ok
// F32: out10: ok
// F32: out11: ok
// F32: out12: ok
// F32: out13: ok
// F32: out14: ok
// F32: out15: ok
// F32: out16: ok
// F32: out17: ok
// F32: out18: ok
// F32: out19: ok
// F32: out20: ok
// F32: out21: ok
// F32: out22: ok
// I32: out26: ok
// I32: out27: ok
// I32: out28: ok
// I32: out29: ok
// I32: out30: ok
// I32: out31: ok
// I32: out32: ok
// I32: out33: ok
// I32: out34: ok
// I32: out35: ok
// I32: out36: ok
// I32: out37: ok
// I32: out38: ok
// I32: out39: ok
// I32: out40: ok
// I32: out41: ok
// I32: out42: ok
// I32: out43: ok
// I32: out44: ok
// I32: out45: ok

func.func @reduce_sum_f32(%A: memref<128x48xf32>, %I1: memref<128xf32>, %I0: memref<4x48xf32>,
    %O1: memref<128xf32>, %O0: memref<4x48xf32>, %O1a: memref<128xf32>, %O0a: memref<4x48xf32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_fragment : memref<32x48xf32, #tile.scope<fragment>>
    %R1 = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    %R0 = tile.alloc_fragment : memref<48xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xf32> to memref<32x48xf32, #tile.scope<fragment>>
    // With clear (the default): the target is overwritten.
    tile.reduce sum %As into %R1 dim = 1 : memref<32x48xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<fragment>>
    tile.copy %R1 to %O1[%m0] : memref<32xf32, #tile.scope<fragment>> to memref<128xf32>
    tile.reduce sum %As into %R0 dim = 0 : memref<32x48xf32, #tile.scope<fragment>> into memref<48xf32, #tile.scope<fragment>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xf32, #tile.scope<fragment>> to memref<4x48xf32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xf32> to memref<32xf32, #tile.scope<fragment>>
    tile.reduce sum %As into %R1 dim = 1 {clear = false} : memref<32x48xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<fragment>>
    tile.copy %R1 to %O1a[%m0] : memref<32xf32, #tile.scope<fragment>> to memref<128xf32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xf32> to memref<48xf32, #tile.scope<fragment>>
    tile.reduce sum %As into %R0 dim = 0 {clear = false} : memref<32x48xf32, #tile.scope<fragment>> into memref<48xf32, #tile.scope<fragment>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xf32, #tile.scope<fragment>> to memref<4x48xf32>
  }
  return
}

func.func @reduce_max_f32(%A: memref<128x48xf32>, %I1: memref<128xf32>, %I0: memref<4x48xf32>,
    %O1: memref<128xf32>, %O0: memref<4x48xf32>, %O1a: memref<128xf32>, %O0a: memref<4x48xf32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_shared : memref<32x48xf32, #tile.scope<shared>>
    %R1 = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    %R0 = tile.alloc_fragment : memref<48xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xf32> to memref<32x48xf32, #tile.scope<shared>>
    // With clear (the default): the target is overwritten.
    tile.reduce max %As into %R1 dim = 1 : memref<32x48xf32, #tile.scope<shared>> into memref<32xf32, #tile.scope<fragment>>
    tile.copy %R1 to %O1[%m0] : memref<32xf32, #tile.scope<fragment>> to memref<128xf32>
    tile.reduce max %As into %R0 dim = 0 : memref<32x48xf32, #tile.scope<shared>> into memref<48xf32, #tile.scope<fragment>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xf32, #tile.scope<fragment>> to memref<4x48xf32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xf32> to memref<32xf32, #tile.scope<fragment>>
    tile.reduce max %As into %R1 dim = 1 {clear = false} : memref<32x48xf32, #tile.scope<shared>> into memref<32xf32, #tile.scope<fragment>>
    tile.copy %R1 to %O1a[%m0] : memref<32xf32, #tile.scope<fragment>> to memref<128xf32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xf32> to memref<48xf32, #tile.scope<fragment>>
    tile.reduce max %As into %R0 dim = 0 {clear = false} : memref<32x48xf32, #tile.scope<shared>> into memref<48xf32, #tile.scope<fragment>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xf32, #tile.scope<fragment>> to memref<4x48xf32>
  }
  return
}

func.func @reduce_min_f32(%A: memref<128x48xf32>, %I1: memref<128xf32>, %I0: memref<4x48xf32>,
    %O1: memref<128xf32>, %O0: memref<4x48xf32>, %O1a: memref<128xf32>, %O0a: memref<4x48xf32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_fragment : memref<32x48xf32, #tile.scope<fragment>>
    %R1 = tile.alloc_local : memref<32xf32, #tile.scope<local>>
    %R0 = tile.alloc_local : memref<48xf32, #tile.scope<local>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xf32> to memref<32x48xf32, #tile.scope<fragment>>
    // With clear (the default): the target is overwritten.
    tile.reduce min %As into %R1 dim = 1 : memref<32x48xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<local>>
    tile.copy %R1 to %O1[%m0] : memref<32xf32, #tile.scope<local>> to memref<128xf32>
    tile.reduce min %As into %R0 dim = 0 : memref<32x48xf32, #tile.scope<fragment>> into memref<48xf32, #tile.scope<local>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xf32, #tile.scope<local>> to memref<4x48xf32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xf32> to memref<32xf32, #tile.scope<local>>
    tile.reduce min %As into %R1 dim = 1 {clear = false} : memref<32x48xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<local>>
    tile.copy %R1 to %O1a[%m0] : memref<32xf32, #tile.scope<local>> to memref<128xf32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xf32> to memref<48xf32, #tile.scope<local>>
    tile.reduce min %As into %R0 dim = 0 {clear = false} : memref<32x48xf32, #tile.scope<fragment>> into memref<48xf32, #tile.scope<local>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xf32, #tile.scope<local>> to memref<4x48xf32>
  }
  return
}

func.func @reduce_abssum_f32(%A: memref<128x48xf32>, %I1: memref<128xf32>, %I0: memref<4x48xf32>,
    %O1: memref<128xf32>, %O0: memref<4x48xf32>, %O1a: memref<128xf32>, %O0a: memref<4x48xf32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_local : memref<32x48xf32, #tile.scope<local>>
    %R1 = tile.alloc_shared : memref<32xf32, #tile.scope<shared>>
    %R0 = tile.alloc_shared : memref<48xf32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xf32> to memref<32x48xf32, #tile.scope<local>>
    // With clear (the default): the target is overwritten.
    tile.reduce abssum %As into %R1 dim = 1 : memref<32x48xf32, #tile.scope<local>> into memref<32xf32, #tile.scope<shared>>
    tile.copy %R1 to %O1[%m0] : memref<32xf32, #tile.scope<shared>> to memref<128xf32>
    tile.reduce abssum %As into %R0 dim = 0 : memref<32x48xf32, #tile.scope<local>> into memref<48xf32, #tile.scope<shared>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xf32, #tile.scope<shared>> to memref<4x48xf32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xf32> to memref<32xf32, #tile.scope<shared>>
    tile.reduce abssum %As into %R1 dim = 1 {clear = false} : memref<32x48xf32, #tile.scope<local>> into memref<32xf32, #tile.scope<shared>>
    tile.copy %R1 to %O1a[%m0] : memref<32xf32, #tile.scope<shared>> to memref<128xf32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xf32> to memref<48xf32, #tile.scope<shared>>
    tile.reduce abssum %As into %R0 dim = 0 {clear = false} : memref<32x48xf32, #tile.scope<local>> into memref<48xf32, #tile.scope<shared>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xf32, #tile.scope<shared>> to memref<4x48xf32>
  }
  return
}

func.func @reduce_absmax_f32(%A: memref<128x48xf32>, %I1: memref<128xf32>, %I0: memref<4x48xf32>,
    %O1: memref<128xf32>, %O0: memref<4x48xf32>, %O1a: memref<128xf32>, %O0a: memref<4x48xf32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_fragment : memref<32x48xf32, #tile.scope<fragment>>
    %R1 = tile.alloc_shared : memref<32xf32, #tile.scope<shared>>
    %R0 = tile.alloc_shared : memref<48xf32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xf32> to memref<32x48xf32, #tile.scope<fragment>>
    // With clear (the default): the target is overwritten.
    tile.reduce absmax %As into %R1 dim = 1 : memref<32x48xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<shared>>
    tile.copy %R1 to %O1[%m0] : memref<32xf32, #tile.scope<shared>> to memref<128xf32>
    tile.reduce absmax %As into %R0 dim = 0 : memref<32x48xf32, #tile.scope<fragment>> into memref<48xf32, #tile.scope<shared>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xf32, #tile.scope<shared>> to memref<4x48xf32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xf32> to memref<32xf32, #tile.scope<shared>>
    tile.reduce absmax %As into %R1 dim = 1 {clear = false} : memref<32x48xf32, #tile.scope<fragment>> into memref<32xf32, #tile.scope<shared>>
    tile.copy %R1 to %O1a[%m0] : memref<32xf32, #tile.scope<shared>> to memref<128xf32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xf32> to memref<48xf32, #tile.scope<shared>>
    tile.reduce absmax %As into %R0 dim = 0 {clear = false} : memref<32x48xf32, #tile.scope<fragment>> into memref<48xf32, #tile.scope<shared>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xf32, #tile.scope<shared>> to memref<4x48xf32>
  }
  return
}

func.func @reduce_sum_i32(%A: memref<128x48xi32>, %I1: memref<128xi32>, %I0: memref<4x48xi32>,
    %O1: memref<128xi32>, %O0: memref<4x48xi32>, %O1a: memref<128xi32>, %O0a: memref<4x48xi32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_fragment : memref<32x48xi32, #tile.scope<fragment>>
    %R1 = tile.alloc_fragment : memref<32xi32, #tile.scope<fragment>>
    %R0 = tile.alloc_fragment : memref<48xi32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xi32> to memref<32x48xi32, #tile.scope<fragment>>
    // With clear (the default): the target is overwritten.
    tile.reduce sum %As into %R1 dim = 1 : memref<32x48xi32, #tile.scope<fragment>> into memref<32xi32, #tile.scope<fragment>>
    tile.copy %R1 to %O1[%m0] : memref<32xi32, #tile.scope<fragment>> to memref<128xi32>
    tile.reduce sum %As into %R0 dim = 0 : memref<32x48xi32, #tile.scope<fragment>> into memref<48xi32, #tile.scope<fragment>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xi32, #tile.scope<fragment>> to memref<4x48xi32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xi32> to memref<32xi32, #tile.scope<fragment>>
    tile.reduce sum %As into %R1 dim = 1 {clear = false} : memref<32x48xi32, #tile.scope<fragment>> into memref<32xi32, #tile.scope<fragment>>
    tile.copy %R1 to %O1a[%m0] : memref<32xi32, #tile.scope<fragment>> to memref<128xi32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xi32> to memref<48xi32, #tile.scope<fragment>>
    tile.reduce sum %As into %R0 dim = 0 {clear = false} : memref<32x48xi32, #tile.scope<fragment>> into memref<48xi32, #tile.scope<fragment>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xi32, #tile.scope<fragment>> to memref<4x48xi32>
  }
  return
}

func.func @reduce_max_i32(%A: memref<128x48xi32>, %I1: memref<128xi32>, %I0: memref<4x48xi32>,
    %O1: memref<128xi32>, %O0: memref<4x48xi32>, %O1a: memref<128xi32>, %O0a: memref<4x48xi32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_shared : memref<32x48xi32, #tile.scope<shared>>
    %R1 = tile.alloc_fragment : memref<32xi32, #tile.scope<fragment>>
    %R0 = tile.alloc_fragment : memref<48xi32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xi32> to memref<32x48xi32, #tile.scope<shared>>
    // With clear (the default): the target is overwritten.
    tile.reduce max %As into %R1 dim = 1 : memref<32x48xi32, #tile.scope<shared>> into memref<32xi32, #tile.scope<fragment>>
    tile.copy %R1 to %O1[%m0] : memref<32xi32, #tile.scope<fragment>> to memref<128xi32>
    tile.reduce max %As into %R0 dim = 0 : memref<32x48xi32, #tile.scope<shared>> into memref<48xi32, #tile.scope<fragment>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xi32, #tile.scope<fragment>> to memref<4x48xi32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xi32> to memref<32xi32, #tile.scope<fragment>>
    tile.reduce max %As into %R1 dim = 1 {clear = false} : memref<32x48xi32, #tile.scope<shared>> into memref<32xi32, #tile.scope<fragment>>
    tile.copy %R1 to %O1a[%m0] : memref<32xi32, #tile.scope<fragment>> to memref<128xi32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xi32> to memref<48xi32, #tile.scope<fragment>>
    tile.reduce max %As into %R0 dim = 0 {clear = false} : memref<32x48xi32, #tile.scope<shared>> into memref<48xi32, #tile.scope<fragment>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xi32, #tile.scope<fragment>> to memref<4x48xi32>
  }
  return
}

func.func @reduce_min_i32(%A: memref<128x48xi32>, %I1: memref<128xi32>, %I0: memref<4x48xi32>,
    %O1: memref<128xi32>, %O0: memref<4x48xi32>, %O1a: memref<128xi32>, %O0a: memref<4x48xi32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_fragment : memref<32x48xi32, #tile.scope<fragment>>
    %R1 = tile.alloc_local : memref<32xi32, #tile.scope<local>>
    %R0 = tile.alloc_local : memref<48xi32, #tile.scope<local>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xi32> to memref<32x48xi32, #tile.scope<fragment>>
    // With clear (the default): the target is overwritten.
    tile.reduce min %As into %R1 dim = 1 : memref<32x48xi32, #tile.scope<fragment>> into memref<32xi32, #tile.scope<local>>
    tile.copy %R1 to %O1[%m0] : memref<32xi32, #tile.scope<local>> to memref<128xi32>
    tile.reduce min %As into %R0 dim = 0 : memref<32x48xi32, #tile.scope<fragment>> into memref<48xi32, #tile.scope<local>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xi32, #tile.scope<local>> to memref<4x48xi32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xi32> to memref<32xi32, #tile.scope<local>>
    tile.reduce min %As into %R1 dim = 1 {clear = false} : memref<32x48xi32, #tile.scope<fragment>> into memref<32xi32, #tile.scope<local>>
    tile.copy %R1 to %O1a[%m0] : memref<32xi32, #tile.scope<local>> to memref<128xi32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xi32> to memref<48xi32, #tile.scope<local>>
    tile.reduce min %As into %R0 dim = 0 {clear = false} : memref<32x48xi32, #tile.scope<fragment>> into memref<48xi32, #tile.scope<local>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xi32, #tile.scope<local>> to memref<4x48xi32>
  }
  return
}

func.func @reduce_abssum_i32(%A: memref<128x48xi32>, %I1: memref<128xi32>, %I0: memref<4x48xi32>,
    %O1: memref<128xi32>, %O0: memref<4x48xi32>, %O1a: memref<128xi32>, %O0a: memref<4x48xi32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_local : memref<32x48xi32, #tile.scope<local>>
    %R1 = tile.alloc_shared : memref<32xi32, #tile.scope<shared>>
    %R0 = tile.alloc_shared : memref<48xi32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xi32> to memref<32x48xi32, #tile.scope<local>>
    // With clear (the default): the target is overwritten.
    tile.reduce abssum %As into %R1 dim = 1 : memref<32x48xi32, #tile.scope<local>> into memref<32xi32, #tile.scope<shared>>
    tile.copy %R1 to %O1[%m0] : memref<32xi32, #tile.scope<shared>> to memref<128xi32>
    tile.reduce abssum %As into %R0 dim = 0 : memref<32x48xi32, #tile.scope<local>> into memref<48xi32, #tile.scope<shared>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xi32, #tile.scope<shared>> to memref<4x48xi32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xi32> to memref<32xi32, #tile.scope<shared>>
    tile.reduce abssum %As into %R1 dim = 1 {clear = false} : memref<32x48xi32, #tile.scope<local>> into memref<32xi32, #tile.scope<shared>>
    tile.copy %R1 to %O1a[%m0] : memref<32xi32, #tile.scope<shared>> to memref<128xi32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xi32> to memref<48xi32, #tile.scope<shared>>
    tile.reduce abssum %As into %R0 dim = 0 {clear = false} : memref<32x48xi32, #tile.scope<local>> into memref<48xi32, #tile.scope<shared>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xi32, #tile.scope<shared>> to memref<4x48xi32>
  }
  return
}

func.func @reduce_absmax_i32(%A: memref<128x48xi32>, %I1: memref<128xi32>, %I0: memref<4x48xi32>,
    %O1: memref<128xi32>, %O0: memref<4x48xi32>, %O1a: memref<128xi32>, %O0a: memref<4x48xi32>) {
  %c32 = arith.constant 32 : index
  tile.kernel (%by) in (4) threads(128) {
    %As = tile.alloc_fragment : memref<32x48xi32, #tile.scope<fragment>>
    %R1 = tile.alloc_shared : memref<32xi32, #tile.scope<shared>>
    %R0 = tile.alloc_shared : memref<48xi32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    tile.copy %A[%m0, 0] to %As : memref<128x48xi32> to memref<32x48xi32, #tile.scope<fragment>>
    // With clear (the default): the target is overwritten.
    tile.reduce absmax %As into %R1 dim = 1 : memref<32x48xi32, #tile.scope<fragment>> into memref<32xi32, #tile.scope<shared>>
    tile.copy %R1 to %O1[%m0] : memref<32xi32, #tile.scope<shared>> to memref<128xi32>
    tile.reduce absmax %As into %R0 dim = 0 : memref<32x48xi32, #tile.scope<fragment>> into memref<48xi32, #tile.scope<shared>>
    tile.copy %R0 to %O0[%by, 0] [1, 48] : memref<48xi32, #tile.scope<shared>> to memref<4x48xi32>
    // Without clear: combined with the target's contents.
    tile.copy %I1[%m0] to %R1 : memref<128xi32> to memref<32xi32, #tile.scope<shared>>
    tile.reduce absmax %As into %R1 dim = 1 {clear = false} : memref<32x48xi32, #tile.scope<fragment>> into memref<32xi32, #tile.scope<shared>>
    tile.copy %R1 to %O1a[%m0] : memref<32xi32, #tile.scope<shared>> to memref<128xi32>
    tile.copy %I0[%by, 0] [1, 48] to %R0 : memref<4x48xi32> to memref<48xi32, #tile.scope<shared>>
    tile.reduce absmax %As into %R0 dim = 0 {clear = false} : memref<32x48xi32, #tile.scope<fragment>> into memref<48xi32, #tile.scope<shared>>
    tile.copy %R0 to %O0a[%by, 0] [1, 48] : memref<48xi32, #tile.scope<shared>> to memref<4x48xi32>
  }
  return
}

func.func @reduce_all(%A_f32: memref<128x48xf32>,
    %I1_f32: memref<128xf32>,
    %I0_f32: memref<4x48xf32>,
    %sum1_f32: memref<128xf32>,
    %sum0_f32: memref<4x48xf32>,
    %sum1a_f32: memref<128xf32>,
    %sum0a_f32: memref<4x48xf32>,
    %max1_f32: memref<128xf32>,
    %max0_f32: memref<4x48xf32>,
    %max1a_f32: memref<128xf32>,
    %max0a_f32: memref<4x48xf32>,
    %min1_f32: memref<128xf32>,
    %min0_f32: memref<4x48xf32>,
    %min1a_f32: memref<128xf32>,
    %min0a_f32: memref<4x48xf32>,
    %abssum1_f32: memref<128xf32>,
    %abssum0_f32: memref<4x48xf32>,
    %abssum1a_f32: memref<128xf32>,
    %abssum0a_f32: memref<4x48xf32>,
    %absmax1_f32: memref<128xf32>,
    %absmax0_f32: memref<4x48xf32>,
    %absmax1a_f32: memref<128xf32>,
    %absmax0a_f32: memref<4x48xf32>,
    %A_i32: memref<128x48xi32>,
    %I1_i32: memref<128xi32>,
    %I0_i32: memref<4x48xi32>,
    %sum1_i32: memref<128xi32>,
    %sum0_i32: memref<4x48xi32>,
    %sum1a_i32: memref<128xi32>,
    %sum0a_i32: memref<4x48xi32>,
    %max1_i32: memref<128xi32>,
    %max0_i32: memref<4x48xi32>,
    %max1a_i32: memref<128xi32>,
    %max0a_i32: memref<4x48xi32>,
    %min1_i32: memref<128xi32>,
    %min0_i32: memref<4x48xi32>,
    %min1a_i32: memref<128xi32>,
    %min0a_i32: memref<4x48xi32>,
    %abssum1_i32: memref<128xi32>,
    %abssum0_i32: memref<4x48xi32>,
    %abssum1a_i32: memref<128xi32>,
    %abssum0a_i32: memref<4x48xi32>,
    %absmax1_i32: memref<128xi32>,
    %absmax0_i32: memref<4x48xi32>,
    %absmax1a_i32: memref<128xi32>,
    %absmax0a_i32: memref<4x48xi32>) {
  call @reduce_sum_f32(%A_f32, %I1_f32, %I0_f32, %sum1_f32, %sum0_f32, %sum1a_f32, %sum0a_f32) : (memref<128x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>) -> ()
  call @reduce_max_f32(%A_f32, %I1_f32, %I0_f32, %max1_f32, %max0_f32, %max1a_f32, %max0a_f32) : (memref<128x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>) -> ()
  call @reduce_min_f32(%A_f32, %I1_f32, %I0_f32, %min1_f32, %min0_f32, %min1a_f32, %min0a_f32) : (memref<128x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>) -> ()
  call @reduce_abssum_f32(%A_f32, %I1_f32, %I0_f32, %abssum1_f32, %abssum0_f32, %abssum1a_f32, %abssum0a_f32) : (memref<128x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>) -> ()
  call @reduce_absmax_f32(%A_f32, %I1_f32, %I0_f32, %absmax1_f32, %absmax0_f32, %absmax1a_f32, %absmax0a_f32) : (memref<128x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>, memref<128xf32>, memref<4x48xf32>) -> ()
  call @reduce_sum_i32(%A_i32, %I1_i32, %I0_i32, %sum1_i32, %sum0_i32, %sum1a_i32, %sum0a_i32) : (memref<128x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>) -> ()
  call @reduce_max_i32(%A_i32, %I1_i32, %I0_i32, %max1_i32, %max0_i32, %max1a_i32, %max0a_i32) : (memref<128x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>) -> ()
  call @reduce_min_i32(%A_i32, %I1_i32, %I0_i32, %min1_i32, %min0_i32, %min1a_i32, %min0a_i32) : (memref<128x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>) -> ()
  call @reduce_abssum_i32(%A_i32, %I1_i32, %I0_i32, %abssum1_i32, %abssum0_i32, %abssum1a_i32, %abssum0a_i32) : (memref<128x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>) -> ()
  call @reduce_absmax_i32(%A_i32, %I1_i32, %I0_i32, %absmax1_i32, %absmax0_i32, %absmax1a_i32, %absmax0a_i32) : (memref<128x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>, memref<128xi32>, memref<4x48xi32>) -> ()
  return
}
