// RUN: tile-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: tile-opt %s -cse -split-input-file | FileCheck %s
// RUN: tile-opt %s -canonicalize -cse -split-input-file | FileCheck %s

// Generic transformations (canonicalize, cse; both erase trivially dead ops)
// must not drop or merge tile ops that have effects: only allocations without
// uses are dead.

// CHECK-LABEL: func.func @unused_allocs
func.func @unused_allocs(%x: f32) {
  // CHECK: tile.kernel
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK-NOT: tile.alloc
    %s = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %f = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %l = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    // CHECK: %[[KEPT:.*]] = tile.alloc_local : memref<4xf32, #tile.scope<local>>
    // CHECK-NOT: tile.alloc
    // CHECK: tile.fill %[[KEPT]]
    %kept = tile.alloc_local : memref<4xf32, #tile.scope<local>>
    tile.fill %kept, %x : memref<4xf32, #tile.scope<local>>, f32
  }
  return
}

// -----

// Ops writing to buffers that are never read again are kept.
// CHECK-LABEL: func.func @effects_are_kept
func.func @effects_are_kept(%A: memref<?x?xf16>, %C: memref<?x?xf32>, %m: index, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[AS:.*]] = tile.alloc_shared
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK: %[[BS:.*]] = tile.alloc_shared
    %Bs = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    // CHECK: %[[CF:.*]] = tile.alloc_fragment
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: %[[M:.*]] = tile.alloc_fragment
    %M = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.copy %{{.*}}[%{{.*}}, 0] to %[[AS]]
    tile.copy %A[%m, 0] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.copy %{{.*}}[0, %{{.*}}] to %[[BS]]
    tile.copy %A[0, %m] to %Bs : memref<?x?xf16> to memref<32x64xf16, #tile.scope<shared>>
    // CHECK: tile.fill %[[CF]]
    tile.fill %Cf, %x : memref<64x64xf32, #tile.scope<fragment>>, f32
    // CHECK: tile.gemm %[[AS]], %[[BS]], %[[CF]]
    tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: tile.reduce max %[[CF]] into %[[M]]
    tile.reduce max %Cf into %M dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.clear %[[M]]
    tile.clear %M : memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.atomic_add
    tile.atomic_add %C[%m, 0], %x : memref<?x?xf32>, f32
    // CHECK: tile.atomic_max
    tile.atomic_max %C[%m, 0], %Cf : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: tile.atomic_min
    tile.atomic_min %C[%m, 0], %Cf : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A buffer used only by a layout annotation is kept, and so is the
// annotation.
// CHECK-LABEL: func.func @annotations_are_kept
func.func @annotations_are_kept() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[S:.*]] = tile.alloc_shared
    %s = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    // CHECK: %[[F:.*]] = tile.alloc_fragment
    %f = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.annotate_layout %[[S]] layout(#tile.swizzle<3, 4, 3>)
    tile.annotate_layout %s layout(#tile.swizzle<3, 4, 3>) : memref<64x64xf16, #tile.scope<shared>>
    // CHECK: tile.annotate_layout %[[F]] layout(#tile.fragment
    tile.annotate_layout %f layout(#tile.fragment<[64], threads = 64, (d0) -> (d0, 0)>) : memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Identical allocations are distinct buffers; identical copies, fills and
// annotations each take effect: CSE merges none of them.
// CHECK-LABEL: func.func @no_merging
func.func @no_merging(%A: memref<?xf32>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[A:.*]] = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // CHECK: %[[B:.*]] = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // CHECK: tile.copy %{{.*}}[0] to %[[A]]
    // CHECK: tile.copy %{{.*}}[0] to %[[B]]
    tile.copy %A[0] to %a : memref<?xf32> to memref<64xf32, #tile.scope<shared>>
    tile.copy %A[0] to %b : memref<?xf32> to memref<64xf32, #tile.scope<shared>>
    // CHECK: tile.annotate_layout %[[A]]
    // CHECK: tile.annotate_layout %[[A]]
    tile.annotate_layout %a layout(#tile.swizzle<2, 4, 3>) : memref<64xf32, #tile.scope<shared>>
    tile.annotate_layout %a layout(#tile.swizzle<2, 4, 3>) : memref<64xf32, #tile.scope<shared>>
    // CHECK: tile.fill %[[A]]
    // CHECK: tile.copy %[[A]] to %{{.*}}[64]
    // CHECK: tile.fill %[[A]]
    // CHECK: tile.copy %[[A]] to %{{.*}}[64]
    tile.fill %a, %x : memref<64xf32, #tile.scope<shared>>, f32
    tile.copy %a to %A[64] : memref<64xf32, #tile.scope<shared>> to memref<?xf32>
    tile.fill %a, %x : memref<64xf32, #tile.scope<shared>>, f32
    tile.copy %a to %A[64] : memref<64xf32, #tile.scope<shared>> to memref<?xf32>
  }
  return
}

// -----

// Dead pure ops inside tile loops are removed; the loops, which write
// memory, stay.
// CHECK-LABEL: func.func @dead_pure_ops_in_loops
func.func @dead_pure_ops_in_loops(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[V:.*]] = tile.alloc_fragment
    %v = tile.alloc_fragment : memref<16xindex, #tile.scope<fragment>>
    // CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} num_stages = 2 {
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      // CHECK-NEXT: tile.parallel (%[[I:.*]]) in (16) {
      tile.parallel (%i) in (16) {
        %dead = arith.muli %i, %k : index
        // CHECK-NEXT: %[[S:.*]] = arith.addi %[[K]], %[[I]]
        %s = arith.addi %k, %i : index
        // CHECK-NEXT: memref.store %[[S]], %[[V]][%[[I]]]
        memref.store %s, %v[%i] : memref<16xindex, #tile.scope<fragment>>
      // CHECK-NEXT: }
      }
    // CHECK-NEXT: }
    }
  }
  return
}

// -----

// A kernel whose body has no effect at all is itself dead.
// CHECK-LABEL: func.func @kernel_without_effects
// CHECK-NOT: tile.kernel
// CHECK: return
func.func @kernel_without_effects(%n: index) {
  tile.kernel (%bx) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %i = arith.addi %bx, %bx : index
  }
  return
}
