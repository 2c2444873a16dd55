// RUN: tile-opt %s -canonicalize -split-input-file | FileCheck %s

// tile.fill with a constant +0.0 or integer 0 becomes tile.clear.

// CHECK-LABEL: func.func @fill_zero_to_clear
func.func @fill_zero_to_clear() {
  %f0 = arith.constant 0.0 : f32
  %h0 = arith.constant 0.0 : bf16
  %i0 = arith.constant 0 : i32
  %x0 = arith.constant 0 : index
  %e0 = arith.constant 0.0 : f8E4M3FN
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[F:.*]] = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    %f = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    // CHECK: %[[H:.*]] = tile.alloc_shared : memref<64x64xbf16, #tile.scope<shared>>
    %h = tile.alloc_shared : memref<64x64xbf16, #tile.scope<shared>>
    // CHECK: %[[I:.*]] = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    %i = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    // CHECK: %[[X:.*]] = tile.alloc_local : memref<2xindex, #tile.scope<local>>
    %x = tile.alloc_local : memref<2xindex, #tile.scope<local>>
    // CHECK: %[[E:.*]] = tile.alloc_shared : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    // CHECK-NOT: tile.fill
    // CHECK: tile.clear %[[F]] : memref<128xf32, #tile.scope<fragment>>
    tile.fill %f, %f0 : memref<128xf32, #tile.scope<fragment>>, f32
    // CHECK-NEXT: tile.clear %[[H]] : memref<64x64xbf16, #tile.scope<shared>>
    tile.fill %h, %h0 : memref<64x64xbf16, #tile.scope<shared>>, bf16
    // CHECK-NEXT: tile.clear %[[I]] : memref<4xi32, #tile.scope<local>>
    tile.fill %i, %i0 : memref<4xi32, #tile.scope<local>>, i32
    // CHECK-NEXT: tile.clear %[[X]] : memref<2xindex, #tile.scope<local>>
    tile.fill %x, %x0 : memref<2xindex, #tile.scope<local>>, index
    // CHECK-NEXT: tile.clear %[[E]] : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    tile.fill %e, %e0 : memref<16x16xf8E4M3FN, #tile.scope<shared>>, f8E4M3FN
  }
  return
}

// -----

// -0.0 is not zero bits: the fill stays. So do other constants and values
// that are not constants.
// CHECK-LABEL: func.func @fill_not_zero
// CHECK-SAME: (%[[V:.*]]: f32)
func.func @fill_not_zero(%v: f32) {
  // CHECK-DAG: %[[NEG0:.*]] = arith.constant -0.000000e+00 : f32
  // CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK-DAG: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
  // CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i32
  %neg0 = arith.constant -0.0 : f32
  %one = arith.constant 1.0 : f32
  %neg_inf = arith.constant 0xFF800000 : f32
  %i1 = arith.constant 1 : i32
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[F:.*]] = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    %f = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    // CHECK: %[[I:.*]] = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    %i = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    // CHECK-NOT: tile.clear
    // CHECK: tile.fill %[[F]], %[[NEG0]] : memref<128xf32, #tile.scope<fragment>>, f32
    tile.fill %f, %neg0 : memref<128xf32, #tile.scope<fragment>>, f32
    // CHECK-NEXT: tile.fill %[[F]], %[[ONE]] : memref<128xf32, #tile.scope<fragment>>, f32
    tile.fill %f, %one : memref<128xf32, #tile.scope<fragment>>, f32
    // CHECK-NEXT: tile.fill %[[F]], %[[NEG_INF]] : memref<128xf32, #tile.scope<fragment>>, f32
    tile.fill %f, %neg_inf : memref<128xf32, #tile.scope<fragment>>, f32
    // CHECK-NEXT: tile.fill %[[F]], %[[V]] : memref<128xf32, #tile.scope<fragment>>, f32
    tile.fill %f, %v : memref<128xf32, #tile.scope<fragment>>, f32
    // CHECK-NEXT: tile.fill %[[I]], %[[I1]] : memref<4xi32, #tile.scope<local>>, i32
    tile.fill %i, %i1 : memref<4xi32, #tile.scope<local>>, i32
    // CHECK-NOT: tile.clear
  }
  return
}

// -----

// A zero computed by other ops is folded first, then turned into a clear.
// CHECK-LABEL: func.func @fill_folded_zero
func.func @fill_folded_zero() {
  %a = arith.constant 3 : i32
  %z = arith.subi %a, %a : i32
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[I:.*]] = tile.alloc_local
    %i = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    // CHECK-NEXT: tile.clear %[[I]] : memref<4xi32, #tile.scope<local>>
    tile.fill %i, %z : memref<4xi32, #tile.scope<local>>, i32
  }
  return
}

// -----

// Constant dynamic grid extents of tile.kernel become static ones.
// CHECK-LABEL: func.func @fold_constant_grid
// CHECK-SAME: (%[[O:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[X:.*]]: f32)
func.func @fold_constant_grid(%out: memref<?xf32>, %n: index, %x: f32) {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  // CHECK: tile.kernel (%{{.*}}, %{{.*}}) in (4, 8) threads(128) {
  tile.kernel (%bx, %by) in (%c4, %c8) threads(128) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  // Only the constant extents are folded.
  // CHECK: tile.kernel (%{{.*}}, %{{.*}}, %{{.*}}) in (%[[N]], 4, 2) threads(64) {
  tile.kernel (%bx, %by, %bz) in (%n, %c4, 2) threads(64) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  // The block indices still work after folding.
  // CHECK: tile.kernel (%[[BX:.*]]) in (8) threads(32) {
  // CHECK-NEXT: tile.atomic_add %[[O]][%[[BX]]], %[[X]]
  tile.kernel (%bx) in (%c8) threads(32) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  return
}

// -----

// Non-positive constants would make the kernel invalid: they stay dynamic.
// CHECK-LABEL: func.func @keep_non_positive_grid
func.func @keep_non_positive_grid(%out: memref<?xf32>, %x: f32) {
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-DAG: %[[CM1:.*]] = arith.constant -1 : index
  %c0 = arith.constant 0 : index
  %cm1 = arith.constant -1 : index
  %c2 = arith.constant 2 : index
  // CHECK: tile.kernel (%{{.*}}, %{{.*}}) in (%[[C0]], 2) threads(128) {
  tile.kernel (%bx, %by) in (%c0, %c2) threads(128) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  // CHECK: tile.kernel (%{{.*}}) in (%[[CM1]]) threads(128) {
  tile.kernel (%bx) in (%cm1) threads(128) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  return
}

// -----

// With a cluster, an extent is folded only when the cluster divides it.
// CHECK-LABEL: func.func @fold_grid_with_cluster
func.func @fold_grid_with_cluster(%out: memref<?xf32>, %x: f32) {
  // CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  // CHECK: tile.kernel (%{{.*}}, %{{.*}}) in (8, 6) threads(128) cluster(2, 3) {
  tile.kernel (%bx, %by) in (%c8, %c6) threads(128) cluster(2, 3) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  // CHECK: tile.kernel (%{{.*}}, %{{.*}}) in (8, %[[C6]]) threads(128) cluster(4, 4) {
  tile.kernel (%bx, %by) in (%c8, %c6) threads(128) cluster(4, 4) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  return
}

// -----

// Canonicalization reaches fills nested in loops inside the kernel.
// CHECK-LABEL: func.func @nested_fill
func.func @nested_fill(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f16
  tile.kernel (%bx) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<32xf16, #tile.scope<shared>>
    // CHECK: tile.pipelined
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      // CHECK-NEXT: tile.clear %{{.*}} : memref<32xf16, #tile.scope<shared>>
      tile.fill %s, %z : memref<32xf16, #tile.scope<shared>>, f16
    }
  }
  return
}
