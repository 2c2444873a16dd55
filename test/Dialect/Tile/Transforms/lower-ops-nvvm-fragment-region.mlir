// A copy out of a region of a fragment (T.copy(acc[:4, :], s), the valid
// heads of TileLang's GQA decode block): each thread stores the elements it
// holds inside the region, at their place relative to it; no pair or
// vector stores, which assume the whole fragment.
//
// RUN: tile-opt %s --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 | FileCheck %s
// RUN: tile-opt %s --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s

// CHECK-LABEL: func.func @first_rows
// CHECK: %[[OUT:.*]] = memref.view %{{.*}} : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK: %[[ROW:.*]] = arith.cmpi ult, %[[R:.*]], %c4 : index
// CHECK: %[[COL:.*]] = arith.cmpi ult, %[[C:.*]], %c64 : index
// CHECK: %[[IN:.*]] = arith.andi %[[ROW]], %[[COL]] : i1
// CHECK: scf.if %[[IN]] {
// CHECK:   memref.store %{{.*}}, %[[OUT]][%[[R]], %[[C]]] : memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: vector.store %{{.*}}, %[[OUT]]
// CHECK: return
func.func @first_rows(%A: memref<64x64xf32>, %B: memref<4x64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %s = tile.alloc_shared : memref<4x64xf32, #tile.scope<shared>>
    tile.copy %A[0, 0] [64, 64] to %a[0, 0] [64, 64] : memref<64x64xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %a[0, 0] [4, 64] to %s[0, 0] [4, 64] : memref<64x64xf32, #tile.scope<fragment>> to memref<4x64xf32, #tile.scope<shared>>
    tile.copy %s[0, 0] [4, 64] to %B[0, 0] [4, 64] : memref<4x64xf32, #tile.scope<shared>> to memref<4x64xf32>
  }
  return
}
