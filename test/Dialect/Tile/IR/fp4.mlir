// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Buffers and tensors of f4E2M1FN (TileLang's float4_e2m1fn) round-trip
// with their element shapes; tile-emulate-fp4 packs them two a byte later.

// CHECK-LABEL: func.func @fp4_buffers
// CHECK-SAME: (%[[A:.*]]: memref<?x256xf4E2M1FN>, %[[B:.*]]: memref<?x128xi8>, %[[M:.*]]: index)
func.func @fp4_buffers(%A: memref<?x256xf4E2M1FN>, %B: memref<?x128xi8>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[AS:.*]] = tile.alloc_shared : memref<16x256xf4E2M1FN, #tile.scope<shared>>
    %As = tile.alloc_shared : memref<16x256xf4E2M1FN, #tile.scope<shared>>
    // CHECK: %[[AF:.*]] = tile.alloc_fragment : memref<16x256xf16, #tile.scope<fragment>>
    %Af = tile.alloc_fragment : memref<16x256xf16, #tile.scope<fragment>>
    // CHECK: tile.copy %[[A]][%[[M]], 0] to %[[AS]] : memref<?x256xf4E2M1FN> to memref<16x256xf4E2M1FN, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %As : memref<?x256xf4E2M1FN> to memref<16x256xf4E2M1FN, #tile.scope<shared>>
    // CHECK: tile.copy %[[AS]] to %[[AF]] : memref<16x256xf4E2M1FN, #tile.scope<shared>> to memref<16x256xf16, #tile.scope<fragment>>
    tile.copy %As to %Af : memref<16x256xf4E2M1FN, #tile.scope<shared>> to memref<16x256xf16, #tile.scope<fragment>>
    // CHECK: %[[U8:.*]] = tile.view %[[AS]] : memref<16x256xf4E2M1FN, #tile.scope<shared>> to memref<16x128xi8, #tile.scope<shared>>
    %u8 = tile.view %As : memref<16x256xf4E2M1FN, #tile.scope<shared>> to memref<16x128xi8, #tile.scope<shared>>
    // CHECK: tile.copy %[[U8]] to %[[B]][%[[M]], 0]
    tile.copy %u8 to %B[%m, 0] : memref<16x128xi8, #tile.scope<shared>> to memref<?x128xi8>
  }
  return
}
