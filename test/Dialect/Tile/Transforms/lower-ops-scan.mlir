// tile-lower-ops of tile.scan (TileLang's T.cumsum / T.cummax). On the CPU
// the block's thread scans each line with a running value. On NVIDIA GPUs
// the block's warps scan: a warp takes a line in segments of 32 lanes (a
// scan by shuffles up, then the carry of the earlier segments, lane 31's
// result, broadcast); lines are split over several warps when there are
// fewer lines than warps, their parts' totals meeting in shared scratch.
// Fragments are scanned in a shared staging copy; local buffers serially in
// each thread.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/ops.mlir -split-input-file --tile-lower-ops=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: tile-opt %t/ops.mlir -split-input-file --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 | FileCheck %s --check-prefix=GPU
// RUN: tile-opt %t/errors.mlir -split-input-file --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a -verify-diagnostics

//--- ops.mlir

// 64 rows of 64 on 8 warps: a warp a row, 8 rows a round, no scratch.
// CPU-LABEL: func.func @rows_in_place
// CPU: scf.for %[[I:.*]] = %c0 to %c64 step %c1
// CPU: scf.for %{{.*}} = %c0 to %c1 step %c1
// CPU: %[[ROW:.*]] = scf.for %[[K:.*]] = %c0 to %c64 step %c1 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CPU: %[[X:.*]] = memref.load
// CPU: %[[S:.*]] = arith.addf %[[ACC]], %[[X]]
// CPU: memref.store %[[S]]
// CPU: scf.yield %[[S]]
// CPU-NOT: tile.scan
// GPU-LABEL: func.func @rows_in_place
// GPU: tile.kernel {{.*}}tile.shared_bytes = 16384
// GPU: gpu.barrier
// GPU: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// GPU: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32 iter_args(%[[CARRY:.*]] = %{{.*}}) -> (f32)
// GPU: scf.if %{{.*}} -> (f32)
// GPU: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32 : f32
// GPU: gpu.shuffle  up %{{.*}}, %c2_i32, %c32_i32 : f32
// GPU: gpu.shuffle  up %{{.*}}, %c4_i32, %c32_i32 : f32
// GPU: gpu.shuffle  up %{{.*}}, %c8_i32, %c32_i32 : f32
// GPU: gpu.shuffle  up %{{.*}}, %c16_i32, %c32_i32 : f32
// GPU: arith.addf %[[CARRY]]
// GPU: memref.store
// GPU: gpu.shuffle  idx %{{.*}}, %c31_i32, %c32_i32 : f32
// GPU-NOT: tile.scan
// GPU: return
func.func @rows_in_place(%a: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(256) {
    %s = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    tile.copy %a to %s : memref<64x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    tile.scan sum %s[0, 0] [64, 64] to %s[0, 0] [64, 64] dim = 1 : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32, #tile.scope<shared>>
    tile.copy %s to %a : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32>
  }
  return
}

// -----

// A reverse scan reads the line from its end: position 63 - k.
// CPU-LABEL: func.func @reverse_columns
// CPU: scf.for %[[K:.*]] = %c0 to %c64 step %c1 iter_args
// CPU: arith.subi %c63, %[[K]]
// CPU: arith.maximumf
// GPU-LABEL: func.func @reverse_columns
// GPU: arith.subi %c63
// GPU: arith.maximumf
func.func @reverse_columns(%a: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(256) {
    %s = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    tile.copy %a to %s : memref<64x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    tile.scan max %s[0, 0] [64, 64] to %s[0, 0] [64, 64] dim = 0 {reverse} : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32, #tile.scope<shared>>
    tile.copy %s to %a : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32>
  }
  return
}

// -----

// One line of 512 on 8 warps: each warp scans a part of 64 (2 segments),
// lane 0 publishes the part's total in the 8-float scratch after the
// buffer, and after a barrier each warp folds the totals of the parts
// before its own into its results.
// CPU-LABEL: func.func @split_line
// CPU: scf.for %{{.*}} = %c0 to %c512 step %c1 iter_args
// GPU-LABEL: func.func @split_line
// GPU: tile.kernel {{.*}}tile.shared_bytes = 2080
// GPU: memref.view %{{.*}}[%c2048][] : memref<{{.*}}xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
// GPU: scf.for %{{.*}} = %c0 to %c1 step %c1 {
// GPU: gpu.shuffle  up
// GPU: memref.store %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 iter_args
// GPU: memref.load %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>
// GPU: arith.addf
// GPU: gpu.barrier
func.func @split_line(%a: memref<512xf32>) {
  tile.kernel (%bx) in (1) threads(256) {
    %s = tile.alloc_shared : memref<512xf32, #tile.scope<shared>>
    tile.copy %a to %s : memref<512xf32> to memref<512xf32, #tile.scope<shared>>
    tile.scan sum %s[0] [512] to %s[0] [512] dim = 0 : memref<512xf32, #tile.scope<shared>> to memref<512xf32, #tile.scope<shared>>
    tile.copy %s to %a : memref<512xf32, #tile.scope<shared>> to memref<512xf32>
  }
  return
}

// -----

// A fragment: the threads store the elements they own into the staging
// copy (scratch at the start of shared memory here), the block scans it
// and each thread loads back its registers.
// GPU-LABEL: func.func @fragment
// GPU: tile.kernel {{.*}}tile.shared_bytes = 16384
// GPU: memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf32, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: memref.store %{{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>
// GPU: gpu.barrier
// GPU: gpu.shuffle  up
// GPU: gpu.barrier
// GPU: memref.load %{{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>
// GPU: memref.store %{{.*}} : memref<{{[0-9]+}}xf32>
// GPU: gpu.barrier
func.func @fragment(%a: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %a to %f : memref<64x64xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.scan sum %f[0, 0] [64, 64] to %f[0, 0] [64, 64] dim = 1 : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %f to %a : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf32>
  }
  return
}

// -----

// Local buffers: each thread scans its own copy, no shuffles, no barrier.
// GPU-LABEL: func.func @local
// GPU: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args
// GPU: arith.addi
// GPU-NOT: gpu.shuffle
// GPU-NOT: gpu.barrier
// GPU: return
func.func @local(%a: memref<16xi32>) {
  %one = arith.constant 1 : i32
  tile.kernel (%bx) in (1) threads(128) {
    %l = tile.alloc_local : memref<16xi32, #tile.scope<local>>
    tile.fill %l, %one : memref<16xi32, #tile.scope<local>>, i32
    tile.scan sum %l[0] [16] to %l[0] [16] dim = 0 : memref<16xi32, #tile.scope<local>> to memref<16xi32, #tile.scope<local>>
  }
  return
}

// -----

// 64-bit values are shuffled as two 32-bit halves.
// GPU-LABEL: func.func @f64
// GPU: arith.bitcast %{{.*}} : f64 to i64
// GPU: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32 : i32
// GPU: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32 : i32
// GPU: arith.bitcast %{{.*}} : i64 to f64
func.func @f64(%a: memref<32xf64>) {
  tile.kernel (%bx) in (1) threads(32) {
    %s = tile.alloc_shared : memref<32xf64, #tile.scope<shared>>
    tile.copy %a to %s : memref<32xf64> to memref<32xf64, #tile.scope<shared>>
    tile.scan sum %s[0] [32] to %s[0] [32] dim = 0 : memref<32xf64, #tile.scope<shared>> to memref<32xf64, #tile.scope<shared>>
    tile.copy %s to %a : memref<32xf64, #tile.scope<shared>> to memref<32xf64>
  }
  return
}

//--- errors.mlir

func.func @too_few_threads(%a: memref<64xf32>) {
  tile.kernel (%bx) in (1) threads(16) {
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    tile.copy %a to %s : memref<64xf32> to memref<64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.scan' op scans with whole warps: the block's 16 threads are fewer than a warp (32)}}
    tile.scan sum %s[0] [64] to %s[0] [64] dim = 0 : memref<64xf32, #tile.scope<shared>> to memref<64xf32, #tile.scope<shared>>
  }
  return
}
