// tile-lower-kernel for the NVIDIA targets: each tile.kernel (its body
// already lowered by tile-lower-ops) becomes a gpu.launch of its grid (unit
// y / z when absent) and of `threads` x 1 x 1 threads, with the kernel's
// tile.shared_bytes as dynamic_shared_memory_size; the block indices are
// the launch's block ids; pure host values the body uses are recomputed in
// it, so that only the function's arguments (and values read from memory)
// are captured. Then the whole chain tile-infer-layouts, tile-lower-ops,
// tile-lower-kernel, and the diagnostics.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/lowered.mlir -split-input-file --tile-lower-kernel=target=sm_80 | FileCheck %s
// RUN: tile-opt %t/lowered.mlir -split-input-file --tile-lower-kernel=target=sm_90a | FileCheck %s
// RUN: tile-opt %t/chain.mlir --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 --tile-lower-kernel=target=sm_80 | FileCheck %s --check-prefix=CHAIN
// RUN: tile-opt %t/invalid.mlir -split-input-file --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 --tile-lower-kernel=target=sm_80 -verify-diagnostics
// RUN: tile-opt %t/not-lowered.mlir --tile-lower-kernel=target=sm_80 -verify-diagnostics
// RUN: tile-opt %t/cluster.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a --tile-lower-kernel=target=sm_90a --canonicalize | FileCheck %s --check-prefix=CLUSTER
// RUN: tile-opt %t/unknown-target.mlir --tile-lower-kernel=target=sm_70 -verify-diagnostics

//--- lowered.mlir

// A 2-d grid, one static and one computed on the host; 8192 bytes of shared
// memory.
// CHECK-LABEL: func.func @grid_2d
// CHECK-SAME: (%[[A:[^ ,:()]+]]: memref<?x?xf16>, %[[N:[^ ,:()]+]]: index, %[[H:[^ ,:()]+]]: memref<index>)
// CHECK: %[[GY:.*]] = arith.ceildivui
// CHECK: %[[FROM_MEMORY:.*]] = memref.load %[[H]][] : memref<index>
// CHECK-DAG: %[[GX:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[SMEM:.*]] = arith.constant 8192 : i32
// CHECK: gpu.launch blocks(%[[BX:[^ ,:()]+]], %[[BY:[^ ,:()]+]], %{{.*}}) in (%{{.*}} = %[[GX]], %{{.*}} = %[[GY]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) dynamic_shared_memory_size %[[SMEM]] {
// Host values recomputed in the kernel: constants, the dim of A, n * 64.
// CHECK-DAG: %[[K0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[K64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[M:.*]] = memref.dim %[[A]], %[[K0]] : memref<?x?xf16>
// CHECK-DAG: %[[OFF:.*]] = arith.muli %[[N]], %[[K64]] : index
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[VIEW:.*]] = memref.view %[[BASE]][%[[K0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[ROW:.*]] = arith.muli %[[BY]], %[[K64]] : index
// CHECK: %[[I:.*]] = arith.addi %[[ROW]], %[[OFF]] : index
// CHECK: %[[J:.*]] = arith.minui %[[BX]], %[[M]] : index
// CHECK: %[[V:.*]] = memref.load %[[A]][%[[I]], %[[J]]] : memref<?x?xf16>
// CHECK: memref.store %[[V]], %[[VIEW]][%[[FROM_MEMORY]], %[[K0]]]
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-NOT: tile.
func.func @grid_2d(%A: memref<?x?xf16>, %n: index, %h: memref<index>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %gy = arith.ceildivui %M, %c64 : index
  %off = arith.muli %n, %c64 : index
  %loaded = memref.load %h[] : memref<index>
  tile.kernel (%bx, %by) in (4, %gy) threads(128) attributes {tile.shared_bytes = 8192 : i64} {
    %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %view = memref.view %base[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %row = arith.muli %by, %c64 : index
    %i = arith.addi %row, %off : index
    %j = arith.minui %bx, %M : index
    %v = memref.load %A[%i, %j] : memref<?x?xf16>
    memref.store %v, %view[%loaded, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A 1-d dynamic grid, no shared memory (no tile.shared_bytes: 0 bytes).
// CHECK-LABEL: func.func @grid_1d
// CHECK-SAME: (%[[OUT:[^ ,:()]+]]: memref<?xf32>, %[[X:[^ ,:()]+]]: f32, %[[N:[^ ,:()]+]]: index)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[THREADS:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[SMEM:.*]] = arith.constant 0 : i32
// CHECK: gpu.launch blocks(%[[BX:[^ ,:()]+]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[N]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) dynamic_shared_memory_size %[[SMEM]] {
// CHECK-NEXT: memref.atomic_rmw addf %[[X]], %[[OUT]][%[[BX]]] : (f32, memref<?xf32>) -> f32
// CHECK-NEXT: gpu.terminator
func.func @grid_1d(%out: memref<?xf32>, %x: f32, %n: index) {
  tile.kernel (%bx) in (%n) threads(32) {
    %r = memref.atomic_rmw addf %x, %out[%bx] : (f32, memref<?xf32>) -> f32
  }
  return
}

// -----

// A 3-d static grid; two kernels in one function, each its own launch.
// CHECK-LABEL: func.func @grid_3d
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[T:.*]] = arith.constant 1024 : index
// CHECK-DAG: %[[SMEM:.*]] = arith.constant 256 : i32
// CHECK: gpu.launch blocks(%[[BX:[^ ,:()]+]], %[[BY:[^ ,:()]+]], %[[BZ:[^ ,:()]+]]) in (%{{.*}} = %[[C2]], %{{.*}} = %[[C3]], %{{.*}} = %[[C4]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[T]], %{{.*}}, %{{.*}}) dynamic_shared_memory_size %[[SMEM]] {
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[BX]], %[[BY]], %[[BZ]]]
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks
// CHECK: gpu.terminator
// CHECK-NOT: gpu.launch
func.func @grid_3d(%out: memref<?x?x?xf32>, %x: f32) {
  tile.kernel (%bx, %by, %bz) in (2, 3, 4) threads(1024) attributes {tile.shared_bytes = 256 : i64} {
    %r = memref.atomic_rmw addf %x, %out[%bx, %by, %bz] : (f32, memref<?x?x?xf32>) -> f32
  }
  tile.kernel (%bx) in (1) threads(32) {
    %r = memref.atomic_rmw addf %x, %out[%bx, %bx, %bx] : (f32, memref<?x?x?xf32>) -> f32
  }
  return
}

//--- chain.mlir

// The three passes in a row: a copy through shared memory of 64x64 f16
// (8192 bytes).
// CHAIN-LABEL: func.func @chain
// CHAIN: %[[SMEM:.*]] = arith.constant 8192 : i32
// CHAIN: gpu.launch blocks(%[[BX:[^ ,:()]+]], %{{.*}}, %{{.*}}) in {{.*}} dynamic_shared_memory_size %[[SMEM]] {
// CHAIN: %[[VIEW:.*]] = memref.view {{.*}} to memref<64x64xf16, #gpu.address_space<workgroup>>
// CHAIN: arith.muli %[[BX]]
// CHAIN: gpu.barrier
// CHAIN: vector.load {{.*}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHAIN: vector.store {{.*}}, %[[VIEW]]
// CHAIN: gpu.barrier
// CHAIN: gpu.terminator
// CHAIN-NOT: tile.
func.func @chain(%A: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c64 = arith.constant 64 : index
  tile.kernel (%bx) in (4) threads(128) {
    %S = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %m = arith.muli %bx, %c64 : index
    tile.copy %A[%m, 0] to %S : memref<?x?xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.copy %S to %C[%m, 0] : memref<64x64xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

//--- invalid.mlir

// sm_80 has no thread-block clusters.
func.func @cluster(%out: memref<?xf32>, %x: f32) {
  // expected-error @below {{'tile.kernel' op uses thread-block clusters, which sm_80 does not have (they need sm_90a); remove cluster(...)}}
  tile.kernel (%bx) in (4) threads(32) cluster(2) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  return
}

// -----

// Each kernel is reported.
func.func @two_clusters(%out: memref<?xf32>, %x: f32) {
  // expected-error @below {{'tile.kernel' op uses thread-block clusters}}
  tile.kernel (%bx, %by) in (4, 2) threads(64) cluster(2, 1) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  tile.kernel (%bx) in (4) threads(64) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  // expected-error @below {{'tile.kernel' op uses thread-block clusters}}
  tile.kernel (%bx) in (8) threads(64) cluster(4) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  return
}

//--- not-lowered.mlir

// tile-lower-kernel without tile-lower-ops: the tile buffers are left.
func.func @buffers_left() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_shared' op still produces a tile buffer after lowering}}
    %S = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    tile.clear %S : memref<64xf32, #tile.scope<shared>>
  }
  return
}

//--- unknown-target.mlir

// expected-error @below {{unknown target 'sm_70'; expected one of cpu, sm_80, sm_90a, gfx942}}
module {
  func.func @f() {
    return
  }
}

//--- cluster.mlir

// On sm_90a the launch gets the kernel's cluster size (unit y / z when
// absent); the launcher starts it with cuLaunchKernelEx.
// CLUSTER-LABEL: func.func @cluster
// CLUSTER: gpu.launch clusters({{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c1) blocks({{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c2, %{{.*}} = %c1) threads
func.func @cluster(%out: memref<?xf32>, %x: f32) {
  tile.kernel (%bx, %by) in (4, 2) threads(64) cluster(2, 1) {
    tile.atomic_add %out[%bx], %x : memref<?xf32>, f32
  }
  return
}
