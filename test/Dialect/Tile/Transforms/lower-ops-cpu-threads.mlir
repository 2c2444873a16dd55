// tile-lower-ops for the cpu target on thread-level code: the kernel body
// is cut at its collectives; per-thread code between two cuts runs in a
// loop over the block's threads; collectives exchange per-thread arrays;
// and every diagnostic of that serialization.
//
// RUN: tile-opt %s -split-input-file --tile-lower-ops=target=cpu -verify-diagnostics | FileCheck %s

// Per-thread code between collectives runs in loops over the block's
// threads; a vote reads every lane's predicate from a per-thread array, and
// the code after it reads the thread's result from another.
// CHECK-LABEL: func.func @vote
// CHECK: tile.kernel
// CHECK-DAG: %[[PRED:.*]] = memref.alloca() {{.*}} : memref<64xi1, #tile.scope<local>>
// CHECK-DAG: %[[OUT:.*]] = memref.alloca() {{.*}} : memref<64xi32, #tile.scope<local>>
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[C64:.*]] step
// CHECK:   arith.cmpi sge
// CHECK:   memref.store %{{.*}}, %[[PRED]][%[[T]]]
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %[[C64]] step
// CHECK:   %[[LANE:.*]] = arith.remui %[[T2]], %{{.*}} : index
// CHECK:   %[[W0:.*]] = arith.subi %[[T2]], %[[LANE]]
// CHECK:   %[[WEND:.*]] = arith.minui
// CHECK:   %[[BALLOT:.*]] = scf.for %[[L:.*]] = %[[W0]] to %[[WEND]] step %{{.*}} iter_args
// CHECK:     memref.load %[[PRED]][%[[L]]]
// CHECK:     arith.shli
// CHECK:   memref.store %[[BALLOT]], %[[OUT]][%[[T2]]]
// CHECK: scf.for %[[T3:.*]] = %{{.*}} to %[[C64]] step
// CHECK:   %[[B:.*]] = memref.load %[[OUT]][%[[T3]]]
// CHECK:   memref.store %[[B]], %{{.*}}[%[[T3]]] : memref<64xi32>
// CHECK-NOT: gpu.thread_id
// CHECK-NOT: nvvm.
func.func @vote(%B: memref<64xi32>) {
  tile.kernel (%bx) in (1) threads(64) {
    %t = gpu.thread_id x upper_bound 64
    %ti = arith.index_cast %t : index to i32
    %c7 = arith.constant 7 : i32
    %p = arith.cmpi sge, %ti, %c7 : i32
    %m = arith.constant -1 : i32
    %b = nvvm.vote.sync ballot %m, %p -> i32
    memref.store %b, %B[%t] : memref<64xi32>
  }
  return
}

// -----

// A local buffer stored per-thread values gets a copy per thread; a tile op
// between two thread loops stays once per block; a uniform loop around a
// barrier keeps its place, with thread loops inside.
// CHECK-LABEL: func.func @locals
// CHECK-DAG: %[[W:.*]] = memref.alloca() {{.*}} : memref<32xf32, #tile.scope<local>>
// CHECK-DAG: %[[L:.*]] = memref.alloca() {{.*}} : memref<32x1xf32, #tile.scope<local>>
// CHECK-DAG: %[[S:.*]] = memref.alloca() {{.*}} : memref<32xf32, #tile.scope<shared>>
// CHECK: scf.for %[[T:.*]] =
// CHECK:   memref.store %{{.*}}, %[[L]][%[[T]], %{{.*}}]
// CHECK: vector.transfer_write %{{.*}}, %[[S]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3 step
// CHECK:   scf.for %[[T1:.*]] =
// CHECK:     memref.load %[[L]][%[[T1]], %{{.*}}]
// CHECK:     memref.load %[[S]][%[[T1]]]
// CHECK:     memref.store %{{.*}}, %[[W]][%[[T1]]]
// CHECK:   scf.for %[[T2:.*]] =
// CHECK:     %[[V:.*]] = memref.load %[[W]][%[[T2]]]
// CHECK:     memref.store %[[V]], %[[S]][%[[T2]]]
// CHECK: scf.for %[[T3:.*]] =
// CHECK:   memref.load %[[S]][%[[T3]]]
func.func @locals(%A: memref<32xf32>, %B: memref<32xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %l = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    %s = tile.alloc_shared : memref<32xf32, #tile.scope<shared>>
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x upper_bound 32
    %x = memref.load %A[%t] : memref<32xf32>
    memref.store %x, %l[%c0] : memref<1xf32, #tile.scope<local>>
    tile.copy %A to %s : memref<32xf32> to memref<32xf32, #tile.scope<shared>>
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    scf.for %k = %c0 to %c3 step %c1 {
      %y = memref.load %l[%c0] : memref<1xf32, #tile.scope<local>>
      %z = memref.load %s[%t] : memref<32xf32, #tile.scope<shared>>
      %w = arith.addf %y, %z : f32
      gpu.barrier
      memref.store %w, %s[%t] : memref<32xf32, #tile.scope<shared>>
      gpu.barrier
    }
    %r = memref.load %s[%t] : memref<32xf32, #tile.scope<shared>>
    memref.store %r, %B[%t] : memref<32xf32>
  }
  return
}

// -----

// A value that one thread loop computes (here the same in every thread)
// reaches the next one through a per-thread array.
// CHECK-LABEL: func.func @between_loops
// CHECK: %[[Y:.*]] = memref.alloca() {{.*}} : memref<32xf32, #tile.scope<local>>
// CHECK: scf.for %[[T:.*]] =
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[T]]] : memref<32xf32>
// CHECK:   %[[V:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<32xf32>
// CHECK:   memref.store %[[V]], %[[Y]][%[[T]]]
// CHECK: scf.for %[[T2:.*]] =
// CHECK:   %[[R:.*]] = memref.load %[[Y]][%[[T2]]]
// CHECK:   arith.addf %[[R]], %[[R]]
func.func @between_loops(%A: memref<32xf32>, %B: memref<32xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %c0 = arith.constant 0 : index
    %x = memref.load %A[%t] : memref<32xf32>
    memref.store %x, %B[%t] : memref<32xf32>
    %y = memref.load %A[%c0] : memref<32xf32>
    gpu.barrier
    %z = arith.addf %y, %y : f32
    memref.store %z, %B[%t] : memref<32xf32>
  }
  return
}

// -----

func.func @divergent_vote(%B: memref<32xi32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %c16 = arith.constant 16 : index
    %lo = arith.cmpi ult, %t, %c16 : index
    // expected-error @below {{'scf.if' op holds tile ops or barriers and warp collectives under a condition or bound that differs between the block's threads}}
    scf.if %lo {
      %m = arith.constant -1 : i32
      %true = arith.constant true
      %b = nvvm.vote.sync ballot %m, %true -> i32
      memref.store %b, %B[%t] : memref<32xi32>
    }
  }
  return
}

// -----

func.func @tile_op_reads_thread_value(%A: memref<64xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %s = tile.alloc_shared : memref<32xf32, #tile.scope<shared>>
    %t = gpu.thread_id x upper_bound 32
    // expected-error @below {{'tile.copy' op runs once per block on the cpu target but uses a value that differs between the block's threads}}
    tile.copy %A[%t] to %s : memref<64xf32> to memref<32xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @named_barrier() {
  tile.kernel (%bx) in (1) threads(64) {
    %id = arith.constant 1 : i32
    %n = arith.constant 64 : i32
    // expected-error @below {{'nvvm.barrier' op is a named barrier or one of a subset of the block's threads, which the cpu target cannot run}}
    nvvm.barrier id = %id number_of_threads = %n
  }
  return
}

// -----

!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
func.func @mbarrier() {
  tile.kernel (%bx) in (1) threads(64) {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'nvgpu.mbarrier.create' op uses an mbarrier (T.alloc_barrier and its arrive and wait calls); the cpu target runs a block's threads one after another}}
    %bars = nvgpu.mbarrier.create -> !bars
    %t = nvgpu.mbarrier.arrive %bars[%c0] : !bars -> !nvgpu.mbarrier.token
  }
  return
}

// -----

// An atomic on one element outside the tile ops runs once per thread that
// reaches it, as on GPUs: a memref.atomic_rmw in the loop over the block's
// threads (guarded by the tensor's bounds), also in a kernel without other
// thread-level code.
// CHECK-LABEL: func.func @element_atomics
// CHECK: tile.kernel
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4
// CHECK: scf.if
// CHECK: memref.atomic_rmw addf
// CHECK: memref.atomic_rmw maximumf
func.func @element_atomics(%C: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  tile.kernel (%bx) in (2) threads(4) {
    tile.atomic_add %C[%c0], %one : memref<8xf32>, f32
    %s = tile.alloc_shared : memref<8xf32, #tile.scope<shared>>
    tile.atomic_max %s[%c0], %one : memref<8xf32, #tile.scope<shared>>, f32
  }
  return
}

// -----

// A value that a thread loop computes from nothing per-thread (here a load
// of the block's flag) is the same in every thread: the block-level branch
// around a tile op reads thread 0's copy of it.
// CHECK-LABEL: func.func @uniform_value_of_a_thread_loop
// CHECK: %[[FLAGS:.*]] = memref.alloca() {{.*}} : memref<4xi1
// CHECK: scf.for
// CHECK: arith.cmpi slt
// CHECK: memref.store %{{.*}}, %[[FLAGS]]
// CHECK: %[[FLAG:.*]] = memref.load %[[FLAGS]][%c0]
// CHECK: scf.if %[[FLAG]]
func.func @uniform_value_of_a_thread_loop(%S: memref<2xi32>, %B: memref<4xf32>) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1.0 : f32
  tile.kernel (%bx) in (2) threads(4) {
    %t = gpu.thread_id x upper_bound 4
    %tf = arith.index_cast %t : index to i32
    %f = arith.sitofp %tf : i32 to f32
    memref.store %f, %B[%t] : memref<4xf32>
    %s = memref.load %S[%bx] : memref<2xi32>
    %neg = arith.cmpi slt, %s, %zero : i32
    %frag = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    scf.if %neg {
      tile.fill %frag, %one : memref<4xf32, #tile.scope<fragment>>, f32
    }
  }
  return
}
