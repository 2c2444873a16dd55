// tile-infer-layouts on fragments that scalar code (outside every
// tile.parallel) reads or writes: when nothing else gives them a layout they
// are replicated (every thread holds every element, element e in register
// e, thread 0 the owner), and scalar code works on each thread's own copy.
// A write that would leave the copies different (a per-thread value, index,
// condition or loop bound) is an error at the store.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/layouts.mlir -split-input-file --tile-infer-layouts=target=sm_80 | FileCheck %s
// RUN: tile-opt %t/layouts.mlir -split-input-file --tile-infer-layouts=target=sm_90a | FileCheck %s
// RUN: tile-opt %t/invalid.mlir -split-input-file --tile-infer-layouts=target=sm_80 -verify-diagnostics

//--- layouts.mlir

// A running sum kept in a fragment by a serial loop; written alike by every
// thread (the loop bound and the stored values are the same in each).
// CHECK-LABEL: func.func @serial_sum
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[2, 4], threads = 64, (d0, d1) -> (0, d0 * 4 + d1), replicate = 64, inverse = (d0, d1) -> ((d1 floordiv 4) mod 2, d1 mod 4)>}
func.func @serial_sum(%A: memref<8x4xf32>, %n: index) {
  tile.kernel (%bx) in (1) threads(64) {
    %acc = tile.alloc_fragment : memref<2x4xf32, #tile.scope<fragment>>
    %v = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    tile.fill %acc, %zero : memref<2x4xf32, #tile.scope<fragment>>, f32
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %A[%bx, %i] : memref<8x4xf32>
      memref.store %x, %v[%c0] : memref<1xf32, #tile.scope<local>>
      %y = memref.load %v[%c0] : memref<1xf32, #tile.scope<local>>
      %old = memref.load %acc[%c1, %i] : memref<2x4xf32, #tile.scope<fragment>>
      %new = arith.addf %old, %y : f32
      memref.store %new, %acc[%c1, %i] : memref<2x4xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0] [2, 4] to %A[%c0, %c0] [2, 4] : memref<2x4xf32, #tile.scope<fragment>> to memref<8x4xf32>
  }
  return
}

// -----

// A fragment that a tile.parallel also drives takes the replicated layout
// there as well; an unrelated fragment keeps the cyclic layout.
// CHECK-LABEL: func.func @with_parallel
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[8], threads = 32, (d0) -> (0, d0), replicate = 32, inverse = (d0, d1) -> (d1 mod 8)>}
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[64], threads = 32, (d0) -> (d0 mod 32, d0 floordiv 32)
func.func @with_parallel(%A: memref<8xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %f = tile.alloc_fragment : memref<8xf32, #tile.scope<fragment>>
    %g = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %c3 = arith.constant 3 : index
    %one = arith.constant 1.0 : f32
    tile.parallel (%i) in (8) {
      %x = memref.load %A[%i] : memref<8xf32>
      memref.store %x, %f[%i] : memref<8xf32, #tile.scope<fragment>>
    }
    memref.store %one, %f[%c3] : memref<8xf32, #tile.scope<fragment>>
    tile.fill %g, %one : memref<64xf32, #tile.scope<fragment>>, f32
  }
  return
}

//--- invalid.mlir

func.func @per_thread_value() {
  tile.kernel (%bx) in (1) threads(32) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %v = arith.sitofp %ti : i32 to f32
    // expected-error @below {{writes a fragment outside a tile.parallel loop with a value that differs between the block's threads}}
    memref.store %v, %f[%c0] : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @per_thread_condition(%A: memref<4xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %t = gpu.thread_id x
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      // expected-error @below {{with a condition or loop bound that differs between the block's threads}}
      memref.store %one, %f[%c0] : memref<4xf32, #tile.scope<fragment>>
    }
    %x = memref.load %f[%c0] : memref<4xf32, #tile.scope<fragment>>
    memref.store %x, %A[%c0] : memref<4xf32>
  }
  return
}

// -----

func.func @per_thread_index() {
  tile.kernel (%bx) in (1) threads(32) {
    %f = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    %one = arith.constant 1.0 : f32
    %t = gpu.thread_id x
    // expected-error @below {{with an index that differs}}
    memref.store %one, %f[%t] : memref<32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A local written with a per-thread value is per-thread too.
func.func @through_a_local() {
  tile.kernel (%bx) in (1) threads(32) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    %v = tile.alloc_local : memref<1xindex, #tile.scope<local>>
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    memref.store %t, %v[%c0] : memref<1xindex, #tile.scope<local>>
    %i = memref.load %v[%c0] : memref<1xindex, #tile.scope<local>>
    %one = arith.constant 1.0 : f32
    // expected-error @below {{with an index that differs}}
    memref.store %one, %f[%i] : memref<4xf32, #tile.scope<fragment>>
  }
  return
}
