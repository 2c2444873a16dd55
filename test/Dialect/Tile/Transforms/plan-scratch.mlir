// tile-plan-scratch: after the bytes the pipelines placed
// (tile.shared_bytes), the lowerings' scratch buffers, then tile-plan-shared's
// region; the kernel's tile.shared_bytes becomes its whole dynamic shared
// memory.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/placed.mlir --tile-plan-scratch=target=sm_80 --verify-roundtrip | FileCheck %s
// The warps' partials of a reducer (4 warps x 64 floats).
// RUN: tile-opt %t/reducer.mlir --tile-infer-layouts=target=sm_80 --tile-place-buffers=target=sm_80 --tile-plan-scratch=target=sm_80 --verify-roundtrip | FileCheck %s --check-prefix=REDUCER
// RUN: tile-opt %t/errors.mlir -split-input-file --tile-plan-scratch=target=sm_80 -verify-diagnostics

//--- placed.mlir

// The stage buffers end at 12288: the scratch copy of %F (read across
// threads by a copy to another layout, 4x32 f32 = 512 bytes) at 12288, the
// planned region (4224 bytes) at 12800: A at 12800, B at 12800 + 4096. The
// unused buffer's view goes.
// CHECK-LABEL: func.func @placed
// CHECK: tile.kernel (%{{.*}}) in (1) threads(32) attributes {tile.shared_bytes = 17024 : i64} {
// CHECK-DAG: %[[OA:.*]] = arith.constant 12800 : index
// CHECK-DAG: %[[OB:.*]] = arith.constant 16896 : index
// CHECK-DAG: %[[VA:.*]] = memref.view %{{.*}}[%[[OA]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[VB:.*]] = memref.view %{{.*}}[%[[OB]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: tile.bind_storage %[[VA]] : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
// CHECK: tile.bind_storage %[[VB]] : memref<32xf32, #gpu.address_space<workgroup>> to memref<32xf32, #tile.scope<shared>>
// CHECK: tile.bind_storage %{{.*}} {layout = #tile.fragment<{{.*}}>, scratch_offset = 12288 : i64} : memref<4xf32> to memref<4x32xf32, #tile.scope<fragment>>
// CHECK-NOT: scratch_offset
// CHECK-NOT: planned_offset
// CHECK-NOT: memref<8xf32
// CHECK: return
func.func @placed() {
  tile.kernel (%bx) in (1) threads(32) attributes {planned_shared_bytes = 4224 : i64, tile.shared_bytes = 12288 : i64} {
    %r1 = memref.alloca() : memref<4xf32>
    %r2 = memref.alloca() : memref<4xf32>
    %z = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %va = memref.view %smem[%z][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x32xf16, #gpu.address_space<workgroup>>
    %z2 = arith.constant 0 : index
    %smem2 = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %vb = memref.view %smem2[%z2][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
    %z3 = arith.constant 0 : index
    %smem3 = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %vu = memref.view %smem3[%z3][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
    %A = tile.bind_storage %va {planned_offset = 0 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
    %B = tile.bind_storage %vb {planned_offset = 4096 : i64} : memref<32xf32, #gpu.address_space<workgroup>> to memref<32xf32, #tile.scope<shared>>
    %U = tile.bind_storage %vu {planned_offset = 0 : i64} : memref<8xf32, #gpu.address_space<workgroup>> to memref<8xf32, #tile.scope<shared>>
    %F = tile.bind_storage %r1 {layout = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>} : memref<4xf32> to memref<4x32xf32, #tile.scope<fragment>>
    %G = tile.bind_storage %r2 {layout = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> ((d0 + d1) mod 32, d0), inverse = (d0, d1) -> (d1, (d0 - d1) mod 32)>} : memref<4xf32> to memref<4x32xf32, #tile.scope<fragment>>
    tile.clear %A : memref<64x32xf16, #tile.scope<shared>>
    tile.clear %B : memref<32xf32, #tile.scope<shared>>
    tile.clear %F : memref<4x32xf32, #tile.scope<fragment>>
    tile.copy %F to %G : memref<4x32xf32, #tile.scope<fragment>> to memref<4x32xf32, #tile.scope<fragment>>
  }
  return
}

//--- reducer.mlir

// A local reducer: a copy a warp in the scratch (4 x 32 floats).
// REDUCER-LABEL: func.func @gemv_columns
// REDUCER: tile.kernel {{.*}} attributes {tile.shared_bytes = 512 : i64}
// REDUCER: tile.finalize_reducer sum %{{.*}} {tile.scratch_offset = 0 : i64} : memref<32xf32, #tile.scope<local>>
func.func @gemv_columns(%a: memref<64x32xf32>, %o: memref<?xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %acc = tile.alloc_local : memref<32xf32, #tile.scope<local>>
    tile.clear %acc : memref<32xf32, #tile.scope<local>>
    %f = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    tile.copy %a[0, 0] [64, 32] to %f[0, 0] [64, 32] : memref<64x32xf32> to memref<64x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 32) {
      %v = memref.load %f[%i, %j] : memref<64x32xf32, #tile.scope<fragment>>
      %r = memref.load %acc[%j] : memref<32xf32, #tile.scope<local>>
      %s = arith.addf %r, %v : f32
      memref.store %s, %acc[%j] : memref<32xf32, #tile.scope<local>>
      tile.yield
    }
    tile.finalize_reducer sum %acc : memref<32xf32, #tile.scope<local>>
    tile.copy %acc[0] [32] to %o[0] [32] : memref<32xf32, #tile.scope<local>> to memref<?xf32>
  }
  return
}

// A reducer updated at the rows becomes a fragment whose replicas share
// warps: no scratch.
// REDUCER-LABEL: func.func @gemv_rows
// REDUCER: tile.kernel {{.*}} attributes {tile.shared_bytes = 0 : i64}
// REDUCER: tile.finalize_reducer sum %{{.*}} : memref<64xf32, #tile.scope<fragment>>
func.func @gemv_rows(%a: memref<64x32xf32>, %o: memref<?xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %acc = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    tile.clear %acc : memref<64xf32, #tile.scope<local>>
    %f = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    tile.copy %a[0, 0] [64, 32] to %f[0, 0] [64, 32] : memref<64x32xf32> to memref<64x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 32) {
      %v = memref.load %f[%i, %j] : memref<64x32xf32, #tile.scope<fragment>>
      %r = memref.load %acc[%i] : memref<64xf32, #tile.scope<local>>
      %s = arith.addf %r, %v : f32
      memref.store %s, %acc[%i] : memref<64xf32, #tile.scope<local>>
      tile.yield
    }
    tile.finalize_reducer sum %acc : memref<64xf32, #tile.scope<local>>
    tile.copy %acc[0] [64] to %o[0] [64] : memref<64xf32, #tile.scope<local>> to memref<?xf32>
  }
  return
}

//--- errors.mlir

// The stage buffers leave 128 bytes of sm_80's 166912 free; the planned
// 4096 bytes do not fit.
func.func @over_the_limit() {
  // expected-error @below {{'tile.kernel' op needs 170880 bytes of shared memory once its buffers and pipeline stages are placed; sm_80 allows 166912 per block (use smaller tiles or fewer stages)}}
  tile.kernel (%bx) in (1) threads(32) attributes {planned_shared_bytes = 4096 : i64, tile.shared_bytes = 166784 : i64} {
    %z = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %va = memref.view %smem[%z][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x32xf16, #gpu.address_space<workgroup>>
    %A = tile.bind_storage %va {planned_offset = 0 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
    tile.clear %A : memref<64x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @planned_but_not_a_view() {
  tile.kernel (%bx) in (1) threads(32) {
    %a = memref.alloca() : memref<4xf32>
    // expected-error @below {{'tile.bind_storage' op has a planned offset but its storage is not a view of dynamic shared memory at a constant offset (what tile-place-buffers makes)}}
    %A = tile.bind_storage %a {planned_offset = 0 : i64} : memref<4xf32> to memref<4xf32, #tile.scope<shared>>
    tile.clear %A : memref<4xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @unplaced() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_local' op has no storage yet; tile-plan-scratch runs on placed buffers (run tile-place-buffers first)}}
    %L = tile.alloc_local : memref<4xf32, #tile.scope<local>>
    tile.clear %L : memref<4xf32, #tile.scope<local>>
  }
  return
}
