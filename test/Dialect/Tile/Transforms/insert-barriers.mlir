// tile-insert-barriers: a gpu.barrier between thread-level accesses of a
// shared buffer and the conflicting accesses of other threads that follow
// them; none where each thread touches only its own elements, where only
// tile ops are involved, or between different buffers.
//
// RUN: tile-opt %s -split-input-file --tile-insert-barriers | FileCheck %s

// Every thread fills the buffer in a serial loop, then reads an element
// another thread may have written; the loop that fills it again after the
// read (the next iteration of the outer loop) must wait for every read.
// CHECK-LABEL: func.func @fill_then_read
// CHECK: scf.for
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK: memref.store
// CHECK: }
// CHECK: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @fill_then_read(%A: memref<?xf32>, %C: memref<?xf32>, %n: index) {
  tile.kernel (%bx) in (4) threads(64) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %S = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %tid = gpu.thread_id x upper_bound 64
    scf.for %k = %c0 to %n step %c1 {
      scf.for %i = %c0 to %c64 step %c1 {
        %base = arith.muli %k, %c64 : index
        %g = arith.addi %base, %i : index
        %x = memref.load %A[%g] : memref<?xf32>
        memref.store %x, %S[%i] : memref<64xf32, #tile.scope<shared>>
      }
      %r = arith.subi %c64, %c1 : index
      %j = arith.subi %r, %tid : index
      %v = memref.load %S[%j] : memref<64xf32, #tile.scope<shared>>
      memref.store %v, %C[%tid] : memref<?xf32>
    }
  }
  return
}

// -----

// Each thread writes and reads back its own element (the thread index,
// moved by a constant, in the same dimension): no barrier.
// CHECK-LABEL: func.func @own_elements
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @own_elements(%C: memref<?xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    %S = tile.alloc_shared : memref<2x65xf32, #tile.scope<shared>>
    %tid = gpu.thread_id x upper_bound 64
    %t1 = arith.addi %tid, %c1 : index
    memref.store %one, %S[%c1, %t1] : memref<2x65xf32, #tile.scope<shared>>
    %v = memref.load %S[%c1, %t1] : memref<2x65xf32, #tile.scope<shared>>
    memref.store %v, %C[%tid] : memref<?xf32>
  }
  return
}

// -----

// A neighbour's element: the indices differ, so a barrier.
// CHECK-LABEL: func.func @neighbour
// CHECK: memref.store {{.*}} #tile.scope<shared>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load {{.*}} #tile.scope<shared>
func.func @neighbour(%C: memref<?xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    %S = tile.alloc_shared : memref<65xf32, #tile.scope<shared>>
    %tid = gpu.thread_id x upper_bound 64
    %t1 = arith.addi %tid, %c1 : index
    memref.store %one, %S[%tid] : memref<65xf32, #tile.scope<shared>>
    %v = memref.load %S[%t1] : memref<65xf32, #tile.scope<shared>>
    memref.store %v, %C[%tid] : memref<?xf32>
  }
  return
}

// -----

// One thread writes under a condition that differs between threads: the
// barrier goes after the branch, never inside it (the others would not
// arrive).
// CHECK-LABEL: func.func @divergent_write
// CHECK: scf.if
// CHECK-NOT: gpu.barrier
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
func.func @divergent_write(%C: memref<?xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %S = tile.alloc_shared : memref<1xf32, #tile.scope<shared>>
    %tid = gpu.thread_id x upper_bound 64
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      memref.store %one, %S[%c0] : memref<1xf32, #tile.scope<shared>>
    }
    %v = memref.load %S[%c0] : memref<1xf32, #tile.scope<shared>>
    memref.store %v, %C[%tid] : memref<?xf32>
  }
  return
}

// -----

// A branch every thread takes alike is walked inside: a conflict between
// two accesses of one branch gets its barrier there, not before the branch.
// CHECK-LABEL: func.func @uniform_branch
// CHECK-NOT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK: } else {
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @uniform_branch(%C: memref<?xf32>, %flag: i1) {
  tile.kernel (%bx) in (4) threads(64) {
    %c0 = arith.constant 0 : index
    %S = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %tid = gpu.thread_id x upper_bound 64
    %f = arith.index_cast %tid : index to i32
    %x = arith.sitofp %f : i32 to f32
    scf.if %flag {
      memref.store %x, %S[%tid] : memref<64xf32, #tile.scope<shared>>
      %v = memref.load %S[%c0] : memref<64xf32, #tile.scope<shared>>
      memref.store %v, %C[%tid] : memref<?xf32>
    } else {
      memref.store %x, %C[%tid] : memref<?xf32>
    }
  }
  return
}

// -----

// A tile op that reads what thread-level code wrote, and thread-level code
// that overwrites what a tile op read: a barrier before each. Two tile ops
// in a row need none (their lowering orders them).
// CHECK-LABEL: func.func @tile_ops
// CHECK: scf.for
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy %{{.*}} to %{{.*}} : memref<64xf32, #tile.scope<shared>> to memref<64xf32>
// CHECK-NEXT: tile.copy
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
func.func @tile_ops(%C: memref<64xf32>, %D: memref<64xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %S = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    scf.for %i = %c0 to %c64 step %c1 {
      memref.store %zero, %S[%i] : memref<64xf32, #tile.scope<shared>>
    }
    tile.copy %S to %C : memref<64xf32, #tile.scope<shared>> to memref<64xf32>
    tile.copy %S to %D : memref<64xf32, #tile.scope<shared>> to memref<64xf32>
    memref.store %zero, %S[%c0] : memref<64xf32, #tile.scope<shared>>
  }
  return
}

// -----

// Different buffers, and reads after reads: no barrier. An existing barrier
// ends what came before it.
// CHECK-LABEL: func.func @no_conflict
// CHECK-COUNT-1: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @no_conflict(%C: memref<?xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %S = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %T = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %tid = gpu.thread_id x upper_bound 64
    memref.store %one, %S[%c0] : memref<64xf32, #tile.scope<shared>>
    %a = memref.load %T[%c0] : memref<64xf32, #tile.scope<shared>>
    %b = memref.load %T[%tid] : memref<64xf32, #tile.scope<shared>>
    gpu.barrier
    %c = memref.load %S[%tid] : memref<64xf32, #tile.scope<shared>>
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    memref.store %t, %C[%tid] : memref<?xf32>
  }
  return
}

// -----

// Atomics into shared memory from every thread, then a read: a barrier
// before the read, none between the atomics.
// CHECK-LABEL: func.func @atomics
// CHECK: tile.atomic_add
// CHECK-NEXT: tile.atomic_add
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
func.func @atomics(%C: memref<?xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %S = tile.alloc_shared : memref<1xf32, #tile.scope<shared>>
    %tid = gpu.thread_id x upper_bound 64
    tile.atomic_add %S[%c0], %one : memref<1xf32, #tile.scope<shared>>, f32
    tile.atomic_add %S[%c0], %one : memref<1xf32, #tile.scope<shared>>, f32
    %v = memref.load %S[%c0] : memref<1xf32, #tile.scope<shared>>
    memref.store %v, %C[%tid] : memref<?xf32>
  }
  return
}
