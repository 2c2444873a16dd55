// tile-lower-ops on sm_80 / sm_90a for a fragment that scalar code reads and
// writes (a serial loop here): tile-infer-layouts replicated it, so each
// thread holds all 8 elements in its register array, the loop's accesses
// read and write the thread's own copy at the element's row-major index,
// and the copy out is written by the owner (thread 0) only.
//
// RUN: tile-opt %s --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 | FileCheck %s
// RUN: tile-opt %s --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s
// The whole pipeline to PTX.
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @scalar_fragment
// CHECK: tile.kernel
// CHECK: %[[REGS:.*]] = memref.alloca() : memref<8xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   %[[X:.*]] = memref.load %{{.*}}[%{{.*}}, %[[I]]] : memref<8x4xf32>
// CHECK:   %[[AT:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK:   %[[OLD:.*]] = memref.load %[[REGS]][%[[AT]]] : memref<8xf32>
// CHECK:   %[[NEW:.*]] = arith.addf %[[OLD]], %[[X]] : f32
// CHECK:   %[[AT2:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK:   memref.store %[[NEW]], %[[REGS]][%[[AT2]]] : memref<8xf32>
// CHECK: }
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[E0:.*]] = memref.load %[[REGS]][%{{.*}}] : memref<8xf32>
// CHECK: %[[OWNER:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : index
// CHECK: scf.if %[[OWNER]] {
// CHECK:   memref.store %[[E0]], %{{.*}} : memref<2x4xf32>
// CHECK-NOT: tile.bind_storage
// PTX: .target sm_90a
// PTX: .entry
// PTX-NOT: .local .align
func.func @scalar_fragment(%A: memref<8x4xf32>, %out: memref<2x4xf32>) {
  tile.kernel (%bx) in (1) threads(64) {
    %acc = tile.alloc_fragment : memref<2x4xf32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    tile.fill %acc, %zero : memref<2x4xf32, #tile.scope<fragment>>, f32
    scf.for %i = %c0 to %c4 step %c1 {
      %x = memref.load %A[%bx, %i] : memref<8x4xf32>
      %old = memref.load %acc[%c1, %i] : memref<2x4xf32, #tile.scope<fragment>>
      %new = arith.addf %old, %x : f32
      memref.store %new, %acc[%c1, %i] : memref<2x4xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0] [2, 4] to %out[%c0, %c0] [2, 4] : memref<2x4xf32, #tile.scope<fragment>> to memref<2x4xf32>
  }
  return
}
