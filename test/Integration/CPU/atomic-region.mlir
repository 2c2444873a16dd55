// Tile atomics with a scalar over a region (TileLang's
// T.atomic_add(A[bx*32:(bx+1)*32, by*32:(by+1)*32], 1.0)): every element of
// the region is combined with the scalar, not only its first. One call of
// @region_all runs every kernel.
//
// @add_region (0): 4x4 blocks each add 1 to their 32x32 region of a
// 128x128 tensor of zeros, twice: all 2.
// @max_min_region (1, 2): atomic max with 0.5 and atomic min with -0.25
// over the regions of random tensors.
// @edge_region (3): 100x70 tensor, 32x32 regions from a 4x3 grid: the
// regions hang over the edges and the elements outside are dropped.
// @shared_region (4): a scalar into regions of a shared buffer, copied out.
//
// RUN: tile-run %s --entry=region_all --seed=5 \
// RUN:   --arg=f32:128x128:zero --arg=f32:64x96 --arg=f32:64x96 \
// RUN:   --arg=f32:100x70:zero --arg=f32:64:poison --save=%t
// RUN: %python %S/check.py %t --out 0 --ref "np.full((128, 128), 2.0)" \
// RUN:   --out 1 --ref "np.maximum(in1, 0.5)" --out 2 --ref "np.minimum(in2, -0.25)" \
// RUN:   --out 3 --ref "np.ones((100, 70))" \
// RUN:   --out 4 --ref "np.concatenate([np.full(16, 3.0), np.full(48, 1.0)])" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s

// CHECK: out0: ok
// CHECK: out1: ok
// CHECK: out2: ok
// CHECK: out3: ok
// CHECK: out4: ok

func.func @add_region(%A: memref<128x128xf32>) {
  tile.kernel (%bx, %by) in (4, 4) threads(32) {
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %m = arith.muli %bx, %c32 : index
    %n = arith.muli %by, %c32 : index
    tile.atomic_add %A[%m, %n] sizes [32, 32], %one : memref<128x128xf32>, f32
    tile.atomic_add %A[%m, %n] sizes [32, 32], %one : memref<128x128xf32>, f32
  }
  return
}

func.func @max_min_region(%X: memref<64x96xf32>, %Y: memref<64x96xf32>) {
  tile.kernel (%bx, %by) in (2, 3) threads(64) {
    %c32 = arith.constant 32 : index
    %half = arith.constant 0.5 : f32
    %quarter = arith.constant -0.25 : f32
    %m = arith.muli %bx, %c32 : index
    %n = arith.muli %by, %c32 : index
    tile.atomic_max %X[%m, %n] sizes [32, 32], %half : memref<64x96xf32>, f32
    tile.atomic_min %Y[%m, %n] sizes [32, 32], %quarter : memref<64x96xf32>, f32
  }
  return
}

func.func @edge_region(%A: memref<?x?xf32>) {
  tile.kernel (%bx, %by) in (4, 3) threads(128) {
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %m = arith.muli %bx, %c32 : index
    %n = arith.muli %by, %c32 : index
    tile.atomic_add %A[%m, %n] sizes [32, 32], %one : memref<?x?xf32>, f32
  }
  return
}

func.func @shared_region(%O: memref<64xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    tile.fill %s, %one : memref<64xf32, #tile.scope<shared>>, f32
    tile.atomic_add %s[0] sizes [16], %two : memref<64xf32, #tile.scope<shared>>, f32
    tile.copy %s to %O : memref<64xf32, #tile.scope<shared>> to memref<64xf32>
  }
  return
}

func.func @region_all(%A: memref<128x128xf32>, %X: memref<64x96xf32>, %Y: memref<64x96xf32>,
    %E: memref<100x70xf32>, %O: memref<64xf32>) {
  call @add_region(%A) : (memref<128x128xf32>) -> ()
  call @max_min_region(%X, %Y) : (memref<64x96xf32>, memref<64x96xf32>) -> ()
  %e = memref.cast %E : memref<100x70xf32> to memref<?x?xf32>
  call @edge_region(%e) : (memref<?x?xf32>) -> ()
  call @shared_region(%O) : (memref<64xf32>) -> ()
  return
}
