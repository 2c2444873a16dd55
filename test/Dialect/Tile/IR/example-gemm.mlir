// The seed example, examples/gemm/gemm.mlir, stays valid: it round-trips in
// custom and generic form and passes tile-verify-target on every target.
//
// RUN: tile-opt %tile_src_root/examples/gemm/gemm.mlir | tile-opt | FileCheck %s
// RUN: tile-opt %tile_src_root/examples/gemm/gemm.mlir --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %tile_src_root/examples/gemm/gemm.mlir --tile-verify-target=target=cpu | FileCheck %s
// RUN: tile-opt %tile_src_root/examples/gemm/gemm.mlir --tile-verify-target=target=sm_80 | FileCheck %s
// RUN: tile-opt %tile_src_root/examples/gemm/gemm.mlir --tile-verify-target=target=sm_90a | FileCheck %s
// RUN: tile-opt %tile_src_root/examples/gemm/gemm.mlir --tile-verify-target=target=gfx942 | FileCheck %s

// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[B:.*]]: memref<?x?xf16>, %[[C:.*]]: memref<?x?xf16>)
// CHECK: %[[GX:.*]] = arith.divui
// CHECK: %[[GY:.*]] = arith.divui
// CHECK: %[[KT:.*]] = arith.divui
// CHECK: tile.kernel (%[[BX:.*]], %[[BY:.*]]) in (%[[GX]], %[[GY]]) threads(128) {
// CHECK-NEXT: %[[AS:.*]] = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
// CHECK-NEXT: %[[BS:.*]] = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
// CHECK-NEXT: %[[CF:.*]] = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
// CHECK-NEXT: tile.clear %[[CF]] : memref<128x128xf32, #tile.scope<fragment>>
// CHECK-NEXT: %[[M0:.*]] = arith.muli %[[BY]], %{{.*}} : index
// CHECK-NEXT: %[[N0:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK-NEXT: tile.pipelined %[[K:.*]] = %{{.*}} to %[[KT]] step %{{.*}} num_stages = 3 {
// CHECK-NEXT: %[[K0:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK-NEXT: tile.copy %[[A]][%[[M0]], %[[K0]]] to %[[AS]] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
// CHECK-NEXT: tile.copy %[[B]][%[[K0]], %[[N0]]] to %[[BS]] : memref<?x?xf16> to memref<32x128xf16, #tile.scope<shared>>
// CHECK-NEXT: tile.gemm %[[AS]], %[[BS]], %[[CF]] : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
// CHECK-NEXT: }
// CHECK-NEXT: tile.copy %[[CF]] to %[[C]][%[[M0]], %[[N0]]] : memref<128x128xf32, #tile.scope<fragment>> to memref<?x?xf16>
// CHECK-NEXT: }
// CHECK-NEXT: return
