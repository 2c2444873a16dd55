// tile-lower-ops of tile.view (TileLang's T.view of a shared buffer with
// another dtype or shape). On the CPU a viewed buffer is allocated as bytes
// and it and its views are memref.views of them; on NVIDIA GPUs a view is
// another memref.view of the dynamic shared memory at the buffer's offset.
//
// RUN: tile-opt %s --tile-lower-ops=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: tile-opt %s --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=GPU

// CPU-LABEL: func.func @narrowing
// CPU: %[[BYTES:.*]] = memref.alloca() {alignment = 64 : i64} : memref<1024xi8, #tile.scope<shared>>
// CPU: memref.view %[[BYTES]][%{{.*}}][] : memref<1024xi8, #tile.scope<shared>> to memref<16x16xf32, #tile.scope<shared>>
// CPU: memref.view %[[BYTES]][%{{.*}}][] : memref<1024xi8, #tile.scope<shared>> to memref<16x32xbf16, #tile.scope<shared>>
// CPU-NOT: tile.view
// GPU-LABEL: func.func @narrowing
// GPU: %[[OFF:.*]] = arith.constant 0 : index
// GPU: %[[SMEM:.*]] = gpu.dynamic_shared_memory
// GPU: memref.view %[[SMEM]][%[[OFF]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x16xf32, #gpu.address_space<workgroup>>
// GPU: memref.view %[[SMEM]][%[[OFF]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x32xbf16, #gpu.address_space<workgroup>>
// GPU-NOT: tile.view
func.func @narrowing(%a: memref<16x16xf32>, %b: memref<16x32xbf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf32, #tile.scope<shared>>
    tile.copy %a to %s : memref<16x16xf32> to memref<16x16xf32, #tile.scope<shared>>
    %v = tile.view %s : memref<16x16xf32, #tile.scope<shared>> to memref<16x32xbf16, #tile.scope<shared>>
    tile.copy %v to %b : memref<16x32xbf16, #tile.scope<shared>> to memref<16x32xbf16>
  }
  return
}
