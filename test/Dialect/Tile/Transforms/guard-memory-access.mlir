// tile-guard-memory-access: accesses whose index may leave the buffer run
// under a bounds check (loads read zero or the annotated safe value, stores
// and atomics are dropped); those the integer range analysis proves inside
// (block, parallel and loop indices against static shapes) stay as they are.
//
// RUN: tile-opt %s -split-input-file --tile-guard-memory-access | FileCheck %s

// 200 elements, 4 blocks of 64: the last block's lanes 8..63 leave the
// tensors. Each access is checked; the load outside reads zero.
// CHECK-LABEL: func.func @guarded_tail
// CHECK-SAME: (%[[A:.*]]: memref<200xf32>, %[[B:.*]]: memref<200xf32>)
// CHECK: tile.parallel (%[[L:.*]]) in (64)
// CHECK: %[[IDX:.*]] = arith.addi
// CHECK: %[[N:.*]] = memref.dim %[[B]], %{{.*}} : memref<200xf32>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[IDX]], %[[N]] : index
// CHECK: %[[V:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK:   %[[X:.*]] = memref.load %[[B]][%[[IDX]]] : memref<200xf32>
// CHECK:   scf.yield %[[X]] : f32
// CHECK: } else {
// CHECK:   %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   scf.yield %[[Z]] : f32
// CHECK: }
// CHECK: %[[IN2:.*]] = arith.cmpi ult, %[[IDX]], %{{.*}} : index
// CHECK: scf.if %[[IN2]] {
// CHECK:   memref.store %[[V]], %[[A]][%[[IDX]]] : memref<200xf32>
// CHECK: }
func.func @guarded_tail(%A: memref<200xf32>, %B: memref<200xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    tile.parallel (%lane) in (64) {
      %c64 = arith.constant 64 : index
      %0 = arith.muli %bx, %c64 : index
      %idx = arith.addi %0, %lane : index
      %v = memref.load %B[%idx] : memref<200xf32>
      memref.store %v, %A[%idx] : memref<200xf32>
    }
  }
  return
}

// -----

// 256 elements in 4 blocks of 64, a serial loop of 4 over 16-element rows
// and a pipelined loop: every index is proven inside, nothing changes.
// CHECK-LABEL: func.func @proven
// CHECK-NOT: scf.if
// CHECK: return
func.func @proven(%A: memref<256xf32>, %B: memref<256x16xf32>, %C: memref<8x256xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%lane) in (64) {
      %c64 = arith.constant 64 : index
      %0 = arith.muli %bx, %c64 : index
      %idx = arith.addi %0, %lane : index
      %v = memref.load %A[%idx] : memref<256xf32>
      memref.store %v, %f[%lane] : memref<64xf32, #tile.scope<fragment>>
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      scf.for %k = %c0 to %c4 step %c1 {
        %c16 = arith.constant 16 : index
        %j = arith.muli %k, %c4 : index
        %w = memref.load %B[%idx, %j] : memref<256x16xf32>
        memref.store %w, %A[%idx] : memref<256xf32>
      }
    }
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    tile.pipelined %k = %c0 to %c8 step %c1 num_stages = 2 {
      %c255 = arith.constant 255 : index
      %x = memref.load %C[%k, %c255] : memref<8x256xf32>
      memref.store %x, %A[%c255] : memref<256xf32>
    }
  }
  return
}

// -----

// Only the dimension that may be left is compared; a dynamic dimension is
// always compared, even at index 0 (the tensor may be empty).
// CHECK-LABEL: func.func @one_dim
// CHECK-SAME: (%[[A:.*]]: memref<100x64xf32>, %[[D:.*]]: memref<?x64xf32>)
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 64)
// CHECK: %[[R:.*]] = arith.addi
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[N:.*]] = memref.dim %[[A]], %[[C0]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[R]], %[[N]]
// CHECK-NOT: arith.cmpi
// CHECK: scf.if %[[IN]] -> (f32)
// CHECK: memref.load %[[A]][%[[R]], %[[J]]]
// CHECK: memref.dim %[[D]], %{{.*}} : memref<?x64xf32>
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK-NOT: arith.cmpi
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[D]][%{{.*}}, %[[J]]]
func.func @one_dim(%A: memref<100x64xf32>, %D: memref<?x64xf32>) {
  tile.kernel (%bx) in (4) threads(128) {
    tile.parallel (%i, %j) in (32, 64) {
      %c32 = arith.constant 32 : index
      %0 = arith.muli %bx, %c32 : index
      %row = arith.addi %0, %i : index
      %v = memref.load %A[%row, %j] : memref<100x64xf32>
      %c0 = arith.constant 0 : index
      memref.store %v, %D[%c0, %j] : memref<?x64xf32>
    }
  }
  return
}

// -----

// tile.annotate_safe_value: the guarded load reads -inf; a copy from the
// tensor without a pad value takes it, one with its own keeps it; the
// annotation is spent.
// CHECK-LABEL: func.func @safe_value
// CHECK-NOT: tile.annotate_safe_value
// CHECK: tile.copy %{{.*}}[%{{.*}}, 0] to %{{.*}} {pad = 0xFF800000 : f32}
// CHECK: tile.copy %{{.*}}[%{{.*}}, 0] to %{{.*}} {pad = 1.000000e+00 : f32}
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK: } else {
// CHECK-NEXT: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: scf.yield %[[NEG]] : f32
func.func @safe_value(%A: memref<?x64xf32>, %O: memref<64xf32>) {
  tile.kernel (%bx) in (4) threads(128) {
    %ninf = arith.constant 0xFF800000 : f32
    tile.annotate_safe_value %A, %ninf : memref<?x64xf32>, f32
    %s = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    %c64 = arith.constant 64 : index
    %m = arith.muli %bx, %c64 : index
    tile.copy %A[%m, 0] [64, 64] to %s : memref<?x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    tile.copy %A[%m, 0] [64, 64] to %s {pad = 1.0 : f32} : memref<?x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    tile.parallel (%i) in (64) {
      %r = arith.addi %m, %i : index
      %v = memref.load %A[%r, %i] : memref<?x64xf32>
      memref.store %v, %O[%i] : memref<64xf32>
    }
  }
  return
}

// -----

// On-chip buffers: an index the analysis cannot bound (a function
// argument) is checked against the buffer's size, for loads, stores,
// memref.atomic_rmw and scalar atomics into shared memory; a scalar atomic
// into global memory is left to its lowering, which checks it.
// CHECK-LABEL: func.func @on_chip
// CHECK-SAME: (%[[G:.*]]: memref<?xi32>, %[[I:.*]]: index, %[[X:.*]]: i32)
// CHECK: %[[S:.*]] = tile.alloc_shared : memref<17xi32, #tile.scope<shared>>
// CHECK: %[[L:.*]] = tile.alloc_local : memref<4xi32, #tile.scope<local>>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %{{.*}} : index
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: tile.atomic_add %[[S]][%[[I]]], %[[X]] : memref<17xi32, #tile.scope<shared>>, i32
// CHECK: tile.atomic_add %[[G]][%[[I]]], %[[X]] : memref<?xi32>, i32
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: memref.atomic_rmw addi %[[X]], %[[S]][%[[I]]]
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: memref.load %[[L]][%[[I]]]
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: memref.store %{{.*}}, %[[L]][%[[I]]]
func.func @on_chip(%G: memref<?xi32>, %i: index, %x: i32) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<17xi32, #tile.scope<shared>>
    %l = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    tile.atomic_add %s[%i], %x : memref<17xi32, #tile.scope<shared>>, i32
    tile.atomic_add %G[%i], %x : memref<?xi32>, i32
    %old = memref.atomic_rmw addi %x, %s[%i] : (i32, memref<17xi32, #tile.scope<shared>>) -> i32
    %v = memref.load %l[%i] : memref<4xi32, #tile.scope<local>>
    %w = arith.addi %v, %old : i32
    memref.store %w, %l[%i] : memref<4xi32, #tile.scope<local>>
  }
  return
}

// -----

// A dynamic grid: the block index is bounded by nothing the analysis knows
// of the tensor, so the access is checked.
// CHECK-LABEL: func.func @dynamic_grid
// CHECK: scf.if
// CHECK: memref.store
func.func @dynamic_grid(%A: memref<1024xf32>, %n: index) {
  tile.kernel (%bx) in (%n) threads(64) {
    tile.parallel (%lane) in (64) {
      %c64 = arith.constant 64 : index
      %0 = arith.muli %bx, %c64 : index
      %idx = arith.addi %0, %lane : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %A[%idx] : memref<1024xf32>
    }
  }
  return
}

// -----

// Regions of on-chip buffers in tile ops: a copy into rows %r..%r+31 of a
// 64-row shared buffer runs only when %r <= 32; a loop index that keeps the
// region inside needs no check; a tile atomic into shared memory at an
// unknown column likewise.
// CHECK-LABEL: func.func @regions
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[R:.*]]: index)
// CHECK: %[[S:.*]] = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
// CHECK: %[[C33:.*]] = arith.constant 33 : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[R]], %[[C33]] : index
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: tile.copy %[[A]][0, 0] [32, 32] to %[[S]][%[[R]], 0] [32, 32]
// CHECK-NEXT: }
// CHECK: scf.for %[[K:.*]] =
// CHECK-NOT: scf.if
// CHECK: tile.copy %[[S]][%{{.*}}, 0] [32, 32] to %[[A]]
// CHECK: }
// CHECK: %[[C97:.*]] = arith.constant 97 : index
// CHECK: %[[IN2:.*]] = arith.cmpi ult, %[[R]], %[[C97]] : index
// CHECK: scf.if %[[IN2]] {
// CHECK-NEXT: tile.atomic_add %{{.*}}[0, %[[R]]], %{{.*}} : memref<64x128xf32, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<fragment>>
func.func @regions(%A: memref<?x?xf16>, %r: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [32, 32] to %s[%r, 0] [32, 32] : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    scf.for %k = %c0 to %c2 step %c1 {
      %row = arith.muli %k, %c32 : index
      tile.copy %s[%row, 0] [32, 32] to %A[%row, 0] [32, 32] : memref<64x32xf16, #tile.scope<shared>> to memref<?x?xf16>
    }
    %acc = tile.alloc_shared : memref<64x128xf32, #tile.scope<shared>>
    %f = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    tile.clear %f : memref<64x32xf32, #tile.scope<fragment>>
    tile.atomic_add %acc[0, %r], %f : memref<64x128xf32, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<fragment>>
  }
  return
}
