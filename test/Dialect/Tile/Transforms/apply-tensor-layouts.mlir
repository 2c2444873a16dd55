// tile-apply-tensor-layouts: a global tensor pinned with a #tile.layout is
// read and written at each element's place in its physical array: copies
// become guarded element-wise tile.parallel loops, element loads, stores
// and atomics index a 1-d view of the tensor at the row-major offset.
//
// RUN: tile-opt %s -split-input-file --tile-apply-tensor-layouts -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @atomic_into_transposed
// CHECK-SAME: (%[[DQ:.*]]: memref<64x16xf32>, %[[X:.*]]: f32)
func.func @atomic_into_transposed(%dq: memref<64x16xf32>, %x: f32) {
  tile.kernel (%bx) in (4) threads(128) {
    // CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[DQ]] {{\[}}[0, 1]] : memref<64x16xf32> into memref<1024xf32>
    // CHECK-NOT: tile.annotate_layout
    tile.annotate_layout %dq layout(#tile.layout<[64, 16] -> [16, 64], (d0, d1) -> (d1, d0)>) : memref<64x16xf32>
    // CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (16, 16)
    tile.parallel (%i, %j) in (16, 16) {
      %c16 = arith.constant 16 : index
      %row0 = arith.muli %bx, %c16 : index
      %row = arith.addi %row0, %i : index
      // The offset of (row, j): j * 64 + row.
      // CHECK: %[[C64:.*]] = arith.constant 64 : index
      // CHECK: %[[M:.*]] = arith.muli %[[J]], %[[C64]] : index
      // CHECK: %[[O:.*]] = arith.addi %[[M]], %{{.*}} : index
      // CHECK: tile.atomic_add %[[FLAT]][%[[O]]], %[[X]] : memref<1024xf32>, f32
      tile.atomic_add %dq[%row, %j], %x : memref<64x16xf32>, f32
    }
  }
  return
}

// -----

// A copy from the pinned tensor to another: element by element, each side
// guarded, the f32 values converted to f16.
// CHECK-LABEL: func.func @copy_out
// CHECK-SAME: (%[[DQ:.*]]: memref<2x64x16xf32>, %[[OUT:.*]]: memref<2x64x16xf16>)
func.func @copy_out(%dq: memref<2x64x16xf32>, %out: memref<2x64x16xf16>) {
  tile.kernel (%bx, %by) in (2, 2) threads(128) {
    // CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[DQ]] {{\[}}[0, 1, 2]] : memref<2x64x16xf32> into memref<2048xf32>
    tile.annotate_layout %dq layout(#tile.layout<[2, 64, 16] -> [2, 8, 2, 2, 32], (d0, d1, d2) -> (d0, d1 floordiv 8, d2 floordiv 8, d2 mod 2, (d1 mod 8) * 4 + (d2 mod 8) floordiv 2)>) : memref<2x64x16xf32>
    %c32 = arith.constant 32 : index
    %m = arith.muli %bx, %c32 : index
    // CHECK-NOT: tile.copy
    // CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 16)
    // CHECK: arith.andi
    // CHECK: %[[V:.*]] = scf.if %{{.*}} -> (f32)
    // CHECK: %[[L:.*]] = memref.load %[[FLAT]][%{{.*}}] : memref<2048xf32>
    // CHECK: scf.yield %[[L]] : f32
    // CHECK: } else {
    // CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
    // CHECK: scf.yield %[[Z]] : f32
    // CHECK: %[[H:.*]] = arith.truncf %[[V]] : f32 to f16
    // CHECK: scf.if
    // CHECK: memref.store %[[H]], %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x64x16xf16>
    tile.copy %dq[%by, %m, 0] [1, 32, 16] to %out[%by, %m, 0] [1, 32, 16] : memref<2x64x16xf32> to memref<2x64x16xf16>
  }
  return
}

// -----

// A copy into shared memory from the pinned tensor: the shared side needs
// no guard.
// CHECK-LABEL: func.func @copy_to_shared
func.func @copy_to_shared(%dq: memref<64x16xf32>) {
  tile.kernel (%bx) in (2) threads(128) {
    tile.annotate_layout %dq layout(#tile.layout<[64, 16] -> [16, 64], (d0, d1) -> (d1, d0)>) : memref<64x16xf32>
    %s = tile.alloc_shared : memref<32x16xf32, #tile.scope<shared>>
    %c32 = arith.constant 32 : index
    %m = arith.muli %bx, %c32 : index
    // CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 16)
    // CHECK: scf.if
    // CHECK: memref.load %{{.*}}[%{{.*}}] : memref<1024xf32>
    // CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x16xf32, #tile.scope<shared>>
    // CHECK-NEXT: }
    tile.copy %dq[%m, 0] to %s : memref<64x16xf32> to memref<32x16xf32, #tile.scope<shared>>
  }
  return
}

// -----

// Element loads and stores outside tile ops.
// CHECK-LABEL: func.func @load_store
func.func @load_store(%t: memref<4x8xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    tile.annotate_layout %t layout(#tile.layout<[4, 8] -> [8, 4], (d0, d1) -> (d1, d0)>) : memref<4x8xf32>
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    // CHECK: %[[V:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<32xf32>
    %v = memref.load %t[%c1, %c2] : memref<4x8xf32>
    // CHECK: memref.store %[[V]], %{{.*}}[%{{.*}}] : memref<32xf32>
    memref.store %v, %t[%c2, %c1] : memref<4x8xf32>
  }
  return
}

// -----

func.func @region_atomic(%t: memref<4x8xf32>, %x: f32) {
  tile.kernel (%bx) in (1) threads(32) {
    tile.annotate_layout %t layout(#tile.layout<[4, 8] -> [8, 4], (d0, d1) -> (d1, d0)>) : memref<4x8xf32>
    // expected-error @below {{'tile.atomic_add' op adds a region or a tile into a tensor whose elements a #tile.layout places}}
    tile.atomic_add %t[0, 0] sizes [4, 8], %x : memref<4x8xf32>, f32
  }
  return
}

// -----

func.func @other_use(%t: memref<4x8xf32>, %x: f32) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-note @below {{the layout is pinned here}}
    tile.annotate_layout %t layout(#tile.layout<[4, 8] -> [8, 4], (d0, d1) -> (d1, d0)>) : memref<4x8xf32>
    %c0 = arith.constant 0 : index
    // expected-error @below {{'memref.atomic_rmw' op uses a tensor whose elements a #tile.layout places; only tile.copy, element loads, stores and element atomics can}}
    %old = memref.atomic_rmw addf %x, %t[%c0, %c0] : (f32, memref<4x8xf32>) -> f32
  }
  return
}

// -----

func.func @pinned_twice(%t: memref<4x8xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-note @below {{the first is here}}
    tile.annotate_layout %t layout(#tile.layout<[4, 8] -> [8, 4], (d0, d1) -> (d1, d0)>) : memref<4x8xf32>
    // expected-error @below {{'tile.annotate_layout' op pins a second #tile.layout on a tensor in the same kernel}}
    tile.annotate_layout %t layout(#tile.layout<[4, 8] -> [4, 8], (d0, d1) -> (d0, d1)>) : memref<4x8xf32>
  }
  return
}
