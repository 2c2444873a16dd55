// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.atomic_add with scalar and tile values, into global
// and shared memory, with static and dynamic offsets.

// CHECK-LABEL: func.func @atomic_add_scalar
// CHECK-SAME: (%[[OUT:.*]]: memref<?x?xf32>, %[[CNT:.*]]: memref<16xi32>, %[[BIG:.*]]: memref<?xi64>, %[[X:.*]]: f32, %[[N:.*]]: i32, %[[W:.*]]: i64, %[[I:.*]]: index, %[[J:.*]]: index)
func.func @atomic_add_scalar(%out: memref<?x?xf32>, %cnt: memref<16xi32>, %big: memref<?xi64>, %x: f32, %n: i32, %w: i64, %i: index, %j: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: tile.atomic_add %[[OUT]][%[[I]], %[[J]]], %[[X]] : memref<?x?xf32>, f32
    tile.atomic_add %out[%i, %j], %x : memref<?x?xf32>, f32
    // CHECK: tile.atomic_add %[[OUT]][0, %[[J]]], %[[X]] : memref<?x?xf32>, f32
    tile.atomic_add %out[0, %j], %x : memref<?x?xf32>, f32
    // CHECK: tile.atomic_add %[[CNT]][3], %[[N]] : memref<16xi32>, i32
    tile.atomic_add %cnt[3], %n : memref<16xi32>, i32
    // CHECK: tile.atomic_add %[[BIG]][%[[I]]], %[[W]] : memref<?xi64>, i64
    tile.atomic_add %big[%i], %w : memref<?xi64>, i64
    // Into shared memory.
    // CHECK: %[[S:.*]] = tile.alloc_shared : memref<4xf32, #tile.scope<shared>>
    %s = tile.alloc_shared : memref<4xf32, #tile.scope<shared>>
    // CHECK: tile.atomic_add %[[S]][%[[I]]], %[[X]] : memref<4xf32, #tile.scope<shared>>, f32
    tile.atomic_add %s[%i], %x : memref<4xf32, #tile.scope<shared>>, f32
  }
  return
}

// CHECK-LABEL: func.func @atomic_add_tile
// CHECK-SAME: (%[[OUT:.*]]: memref<?x?xf32>, %[[H:.*]]: memref<?x?xf16>, %[[I:.*]]: index, %[[J:.*]]: index)
func.func @atomic_add_tile(%out: memref<?x?xf32>, %h: memref<?x?xf16>, %i: index, %j: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[F:.*]] = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: %[[SH:.*]] = tile.alloc_shared : memref<16x8xf16, #tile.scope<shared>>
    %sh = tile.alloc_shared : memref<16x8xf16, #tile.scope<shared>>
    // CHECK: %[[L:.*]] = tile.alloc_local : memref<1x4xf32, #tile.scope<local>>
    %l = tile.alloc_local : memref<1x4xf32, #tile.scope<local>>
    // CHECK: %[[ACC:.*]] = tile.alloc_shared : memref<128x128xf32, #tile.scope<shared>>
    %acc = tile.alloc_shared : memref<128x128xf32, #tile.scope<shared>>
    // CHECK: tile.atomic_add %[[OUT]][%[[I]], %[[J]]], %[[F]] : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
    tile.atomic_add %out[%i, %j], %f : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: tile.atomic_add %[[H]][%[[I]], 0], %[[SH]] : memref<?x?xf16>, memref<16x8xf16, #tile.scope<shared>>
    tile.atomic_add %h[%i, 0], %sh : memref<?x?xf16>, memref<16x8xf16, #tile.scope<shared>>
    // CHECK: tile.atomic_add %[[OUT]][%[[I]], 4], %[[L]] : memref<?x?xf32>, memref<1x4xf32, #tile.scope<local>>
    tile.atomic_add %out[%i, 4], %l : memref<?x?xf32>, memref<1x4xf32, #tile.scope<local>>
    // A fragment tile into a shared buffer.
    // CHECK: tile.atomic_add %[[ACC]][64, 0], %[[F]] {tag} : memref<128x128xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.atomic_add %acc[64, 0], %f {tag} : memref<128x128xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// A scalar into every element of a region (TileLang's
// T.atomic_add(A[i:i+32, j:j+32], 1.0)).
// CHECK-LABEL: func.func @atomic_add_region
// CHECK-SAME: (%[[OUT:.*]]: memref<?x?xf32>, %[[X:.*]]: f32, %[[I:.*]]: index)
func.func @atomic_add_region(%out: memref<?x?xf32>, %x: f32, %i: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: tile.atomic_add %[[OUT]][%[[I]], 0] sizes [32, 16], %[[X]] : memref<?x?xf32>, f32
    tile.atomic_add %out[%i, 0] sizes [32, 16], %x : memref<?x?xf32>, f32
    // CHECK: %[[S:.*]] = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // CHECK: tile.atomic_add %[[S]][32] sizes [32], %[[X]] : memref<64xf32, #tile.scope<shared>>, f32
    tile.atomic_add %s[32] sizes [32], %x : memref<64xf32, #tile.scope<shared>>, f32
  }
  return
}
