// A tile.parallel that reads, at some of its indices, a fragment smaller
// than the block (the x of a gemv: 64 values over 128 threads, the cyclic
// layout leaves threads 64..127 holding nothing) must not read it from the
// thread's own register: the threads that run iterations with column j are
// not all holders of x[j]. The loop reads it from a shared copy instead,
// written by its holders between two barriers, at its own offset (after
// the pipelined A ring, before the reducer's scratch).
//
// RUN: tile-opt %s -split-input-file --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s

// CHECK-LABEL: func.func @scale_columns
// CHECK: tile.shared_bytes = 256
// CHECK: %[[XS:.*]] = memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[XS]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-32: memref.load %[[XS]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.load %{{.*}} : memref<1xf32>
// CHECK: return
func.func @scale_columns(%A: memref<64x64xf32>, %X: memref<64xf32>, %B: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %x = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.copy %A[0, 0] [64, 64] to %a[0, 0] [64, 64] : memref<64x64xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %X[0] [64] to %x[0] [64] : memref<64xf32> to memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %v = memref.load %a[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %s = memref.load %x[%j] : memref<64xf32, #tile.scope<fragment>>
      %p = arith.mulf %v, %s : f32
      memref.store %p, %a[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %a[0, 0] [64, 64] to %B[0, 0] [64, 64] : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf32>
  }
  return
}

// -----

// The gemv of benchmark/gpu/reducers_on_gpu.py: a 64-row reducer summed
// over a two-stage pipeline of 64x64 A tiles. The x tile goes through its
// shared copy at 32768 (after the 2 x 16 KB ring). The reducer, updated at
// the loop's rows, is a fragment of their layout whose copies of a row
// share a warp: the finalize needs no scratch.
// CHECK-LABEL: func.func @gemv
// CHECK: tile.shared_bytes = 33024
// CHECK: memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x64x64xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: %[[XS:.*]] = memref.view %{{.*}}[%c32768][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[XS]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-32: memref.load %[[XS]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.load %{{.*}} : memref<1xf32>
// CHECK: gpu.shuffle  xor
// CHECK-NOT: memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK: return
func.func @gemv(%A: memref<200x300xf32>, %X: memref<300xf32>, %O: memref<200xf32>) {
  tile.kernel (%bx) in (4) threads(128) {
    %acc = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    tile.clear %acc : memref<64xf32, #tile.scope<local>>
    %c0 = arith.constant 0 : index
    %c5 = arith.constant 5 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %row = arith.muli %bx, %c64 : index
    tile.pipelined %bn = %c0 to %c5 step %c1 num_stages = 2 {
      %col = arith.muli %bn, %c64 : index
      %as = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
      tile.copy %A[%row, %col] [64, 64] to %as[0, 0] [64, 64] : memref<200x300xf32> to memref<64x64xf32, #tile.scope<shared>>
      %af = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
      tile.copy %as[0, 0] [64, 64] to %af[0, 0] [64, 64] : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32, #tile.scope<fragment>>
      %xf = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
      tile.copy %X[%col] [64] to %xf[0] [64] : memref<300xf32> to memref<64xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (64, 64) {
        %s = memref.load %acc[%i] : memref<64xf32, #tile.scope<local>>
        %a = memref.load %af[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
        %x = memref.load %xf[%j] : memref<64xf32, #tile.scope<fragment>>
        %p = arith.mulf %a, %x : f32
        %t = arith.addf %s, %p : f32
        memref.store %t, %acc[%i] : memref<64xf32, #tile.scope<local>>
      }
    }
    tile.finalize_reducer sum %acc : memref<64xf32, #tile.scope<local>>
    tile.copy %acc[0] [64] to %O[%row] [64] : memref<64xf32, #tile.scope<local>> to memref<200xf32>
  }
  return
}
