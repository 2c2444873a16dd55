// tile-lower-ops of reducers (TileLang's T.alloc_reducer: a local buffer
// each thread combines its loop iterations into, then tile.finalize_reducer).
// On the CPU a block runs on one thread: the finalize only combines the
// seed in. On NVIDIA GPUs it is a butterfly of warp shuffles per element,
// then the warps' results through shared scratch; copies out of the reducer
// read each thread's copy.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/ops.mlir -split-input-file --tile-lower-ops=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: tile-opt %t/ops.mlir -split-input-file --tile-infer-layouts=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 | FileCheck %s --check-prefix=GPU
// RUN: tile-opt %t/errors.mlir -split-input-file --tile-infer-layouts=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 -verify-diagnostics

//--- ops.mlir

// CPU-LABEL: func.func @gemv_rows
// CPU-NOT: tile.finalize_reducer
// CPU: return
// GPU-LABEL: func.func @gemv_rows
// Updated at the loop's rows, the reducer is a fragment of their layout
// (tile-infer-layouts: the loop's tile row-split, a row on 8 lanes, 4 rows a
// thread): each thread adds its 16 elements into its 4 registers, the 8
// lanes of a row combine theirs by shuffles, and no warp needs another's
// (no scratch). Nothing goes to local memory.
// GPU: tile.kernel {{.*}}tile.shared_bytes = 0
// GPU: %[[ACC:.*]] = memref.alloca() : memref<4xf32>
// GPU-COUNT-4: memref.store %{{.*}}, %[[ACC]]
// GPU-COUNT-4: memref.load %[[ACC]][%c0]
// GPU: gpu.shuffle  xor %{{.*}}, %c1_i32
// GPU: gpu.shuffle  xor %{{.*}}, %c2_i32
// GPU: gpu.shuffle  xor %{{.*}}, %c4_i32
// GPU-NOT: gpu.shuffle  xor %{{.*}}, %c8_i32
// GPU-NOT: gpu.barrier
// GPU: memref.store %{{.*}}, %[[ACC]][%c3]
// GPU-NOT: memref.alloca
// GPU-NOT: tile.
// GPU: return
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

// -----

// CPU-LABEL: func.func @gemv_columns
// CPU-NOT: tile.finalize_reducer
// CPU: return
// GPU-LABEL: func.func @gemv_columns
// Updated at the loop's columns, the reducer stays a local buffer: a copy
// in every thread, combined element by element by a butterfly over the
// warp's lanes, then the 4 warps' results through 4 x 32 floats of scratch;
// copies out read each thread's copy.
// GPU: tile.kernel {{.*}}tile.shared_bytes = 512
// GPU: %[[COPY:.*]] = memref.alloca() : memref<32xf32>
// GPU: scf.for
// GPU: gpu.shuffle  xor %{{.*}}, %c16
// GPU: gpu.shuffle  xor %{{.*}}, %c1
// GPU: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x32xf32, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: scf.for
// GPU-COUNT-4: memref.load %{{.*}} : memref<4x32xf32, #gpu.address_space<workgroup>>
// GPU: memref.store %{{.*}}, %[[COPY]]
// GPU: gpu.barrier
// The copy out: threads share the 32 elements, the global store guarded.
// GPU: scf.for %{{.*}} = %{{.*}} to %c32 step %c128
// GPU: memref.load %[[COPY]]
// GPU: scf.if
// GPU: memref.store %{{.*}} : memref<?xf32>
// GPU-NOT: tile.
// GPU: return
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

// -----

// CPU-LABEL: func.func @seeded_max
// CPU: scf.for
// CPU: %[[V:.*]] = memref.load
// CPU: arith.maximumf %[[V]], %arg1 : f32
// CPU: memref.store
// GPU-LABEL: func.func @seeded_max
// One warp: shuffles only, no scratch.
// GPU-NOT: tile.shared_bytes = {{[1-9]}}
// GPU: gpu.shuffle  xor
// GPU-NOT: gpu.barrier
// GPU: arith.maximumf %{{.*}}, %arg1 : f32
// The result into a fragment: each thread fills the registers it holds.
// GPU: memref.load %{{.*}} : memref<8xf32>
// GPU: memref.store %{{.*}} : memref<1xf32>
func.func @seeded_max(%o: memref<8xf32>, %seed: f32) {
  tile.kernel (%bx) in (1) threads(32) {
    %acc = tile.alloc_local : memref<8xf32, #tile.scope<local>>
    %ninf = arith.constant 0xFF800000 : f32
    tile.fill %acc, %ninf : memref<8xf32, #tile.scope<local>>, f32
    tile.finalize_reducer max %acc seed %seed : memref<8xf32, #tile.scope<local>>, f32
    %res = tile.alloc_fragment : memref<8xf32, #tile.scope<fragment>>
    tile.copy %acc[0] [8] to %res[0] [8] : memref<8xf32, #tile.scope<local>> to memref<8xf32, #tile.scope<fragment>>
    tile.copy %res[0] [8] to %o[0] [8] : memref<8xf32, #tile.scope<fragment>> to memref<8xf32>
  }
  return
}

//--- errors.mlir

func.func @not_whole_warps() {
  tile.kernel (%bx) in (1) threads(48) {
    %acc = tile.alloc_local : memref<8xf32, #tile.scope<local>>
    tile.clear %acc : memref<8xf32, #tile.scope<local>>
    // expected-error @below {{combines the copies of whole warps: the block's 48 threads must be a multiple of 32}}
    tile.finalize_reducer sum %acc : memref<8xf32, #tile.scope<local>>
  }
  return
}

// -----

// The loop follows %m, a row-reduction result replicated over the 4
// threads of each row: each update would count 4 times.
func.func @replicated_updates(%a: memref<64x64xf32>, %o: memref<64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %a[0, 0] [64, 64] to %s[0, 0] [64, 64] : memref<64x64xf32> to memref<64x64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.reduce max %s into %m dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    %acc = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    tile.clear %acc : memref<1xf32, #tile.scope<local>>
    %c0 = arith.constant 0 : index
    // expected-error @below {{updates a reducer in iterations that run on}}
    tile.parallel (%i) in (64) {
      %v = memref.load %m[%i] : memref<64xf32, #tile.scope<fragment>>
      %r = memref.load %acc[%c0] : memref<1xf32, #tile.scope<local>>
      %t = arith.addf %r, %v : f32
      memref.store %t, %acc[%c0] : memref<1xf32, #tile.scope<local>>
      tile.yield
    }
    tile.finalize_reducer sum %acc : memref<1xf32, #tile.scope<local>>
    tile.copy %acc[0] [1] to %o[0] [1] : memref<1xf32, #tile.scope<local>> to memref<64xf32>
  }
  return
}
