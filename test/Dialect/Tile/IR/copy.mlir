// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.copy and of each of its short forms.

// A side without offsets is the whole buffer; a side with offsets but
// without sizes takes its sizes from the other side.
// CHECK-LABEL: func.func @short_forms
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[C:.*]]: memref<?x?xf16>, %[[M:.*]]: index, %[[K:.*]]: index)
func.func @short_forms(%A: memref<?x?xf16>, %C: memref<?x?xf16>, %m: index, %k: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[AS:.*]] = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // CHECK: %[[CF:.*]] = tile.alloc_fragment : memref<128x32xf32, #tile.scope<fragment>>
    %Cf = tile.alloc_fragment : memref<128x32xf32, #tile.scope<fragment>>
    // Global (dynamic offsets, sizes inferred) to a whole shared buffer.
    // CHECK: tile.copy %[[A]][%[[M]], %[[K]]] to %[[AS]] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, %k] to %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    // Mixed static and dynamic offsets.
    // CHECK: tile.copy %[[A]][%[[M]], 64] to %[[AS]] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 64] to %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    // Whole fragment to global, converting f32 to f16.
    // CHECK: tile.copy %[[CF]] to %[[C]][%[[M]], %[[K]]] : memref<128x32xf32, #tile.scope<fragment>> to memref<?x?xf16>
    tile.copy %Cf to %C[%m, %k] : memref<128x32xf32, #tile.scope<fragment>> to memref<?x?xf16>
    // Whole buffer to whole buffer.
    // CHECK: tile.copy %[[AS]] to %[[CF]] : memref<128x32xf16, #tile.scope<shared>> to memref<128x32xf32, #tile.scope<fragment>>
    tile.copy %As to %Cf : memref<128x32xf16, #tile.scope<shared>> to memref<128x32xf32, #tile.scope<fragment>>
  }
  return
}

// Explicit sizes on one or both sides.
// CHECK-LABEL: func.func @explicit_sizes
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[M:.*]]: index)
func.func @explicit_sizes(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[AS:.*]] = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // CHECK: %[[BS:.*]] = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    // Half of the buffer: the target sizes are taken from the source.
    // CHECK: tile.copy %[[A]][%[[M]], 0] [64, 32] to %[[AS]][64, 0] [64, 32] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] [64, 32] to %As[64, 0] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    // The same with sizes on both sides.
    // CHECK: tile.copy %[[A]][%[[M]], 0] [64, 32] to %[[AS]][64, 0] [64, 32] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] [64, 32] to %As[64, 0] [64, 32] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    // Shared to shared, a region of each.
    // CHECK: tile.copy %[[AS]][0, 0] [64, 32] to %[[BS]][0, 96] [64, 32] : memref<128x32xf16, #tile.scope<shared>> to memref<64x128xf16, #tile.scope<shared>>
    tile.copy %As[0, 0] [64, 32] to %Bs[0, 96] [64, 32] : memref<128x32xf16, #tile.scope<shared>> to memref<64x128xf16, #tile.scope<shared>>
    // A region with explicit sizes that covers the whole buffer is printed
    // in the short form.
    // CHECK: tile.copy %[[A]][%[[M]], 0] to %[[AS]] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] [128, 32] to %As[0, 0] [128, 32] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// A statically shaped global memref can be a whole-buffer side too.
// CHECK-LABEL: func.func @static_global
// CHECK-SAME: (%[[G:.*]]: memref<64x64xf32>)
func.func @static_global(%G: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[S:.*]] = tile.alloc_shared
    %s = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    // CHECK: tile.copy %[[G]] to %[[S]] : memref<64x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    tile.copy %G to %s : memref<64x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    // CHECK: tile.copy %[[G]] to %[[S]] : memref<64x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    tile.copy %G[0, 0] to %s : memref<64x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    // Global regions may hang over the edge, even at negative offsets.
    // CHECK: tile.copy %[[G]][-8, 48] to %[[S]] : memref<64x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    tile.copy %G[-8, 48] to %s : memref<64x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    // CHECK: tile.copy %[[S]] to %[[G]][32, 32] : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32>
    tile.copy %s to %G[32, 32] : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32>
  }
  return
}

// Unit dimensions are dropped when the regions are matched.
// CHECK-LABEL: func.func @rank_reducing
// CHECK-SAME: (%[[Q:.*]]: memref<?x?x?x128xf16>, %[[O:.*]]: memref<?x?x?x128xf32>, %[[B:.*]]: index, %[[M:.*]]: index, %[[H:.*]]: index)
func.func @rank_reducing(%Q: memref<?x?x?x128xf16>, %O: memref<?x?x?x128xf32>, %b: index, %m: index, %h: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[QS:.*]] = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Qs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    // CHECK: %[[OF:.*]] = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    %Of = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    // CHECK: %[[ROW:.*]] = tile.alloc_local : memref<1x128xf32, #tile.scope<local>>
    %row = tile.alloc_local : memref<1x128xf32, #tile.scope<local>>
    // CHECK: tile.copy %[[Q]][%[[B]], %[[M]], %[[H]], 0] [1, 64, 1, 128] to %[[QS]] : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.scope<shared>>
    tile.copy %Q[%b, %m, %h, 0] [1, 64, 1, 128] to %Qs : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.scope<shared>>
    // CHECK: tile.copy %[[OF]] to %[[O]][%[[B]], %[[M]], %[[H]], 0] [1, 64, 1, 128] : memref<64x128xf32, #tile.scope<fragment>> to memref<?x?x?x128xf32>
    tile.copy %Of to %O[%b, %m, %h, 0] [1, 64, 1, 128] : memref<64x128xf32, #tile.scope<fragment>> to memref<?x?x?x128xf32>
    // One row of a 2-d buffer into a 1x128 buffer and a 1-d global row.
    // The sizes equal the shape of the whole other side and are left out.
    // CHECK: tile.copy %[[OF]][7, 0] to %[[ROW]] : memref<64x128xf32, #tile.scope<fragment>> to memref<1x128xf32, #tile.scope<local>>
    tile.copy %Of[7, 0] [1, 128] to %row : memref<64x128xf32, #tile.scope<fragment>> to memref<1x128xf32, #tile.scope<local>>
    // CHECK: tile.copy %[[ROW]] to %[[O]][0, %[[M]], 0, 0] [1, 1, 1, 128] : memref<1x128xf32, #tile.scope<local>> to memref<?x?x?x128xf32>
    tile.copy %row to %O[0, %m, 0, 0] [1, 1, 1, 128] : memref<1x128xf32, #tile.scope<local>> to memref<?x?x?x128xf32>
  }
  return
}

// The pad value and the instruction hints.
// CHECK-LABEL: func.func @pad_and_inst
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[I:.*]]: memref<?x?xi8>, %[[M:.*]]: index)
func.func @pad_and_inst(%A: memref<?x?xf16>, %I: memref<?x?xi8>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[AS:.*]] = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK: %[[IS:.*]] = tile.alloc_shared : memref<64x32xi8, #tile.scope<shared>>
    %Is = tile.alloc_shared : memref<64x32xi8, #tile.scope<shared>>
    // CHECK: %[[AF:.*]] = tile.alloc_fragment : memref<64x32xf16, #tile.scope<fragment>>
    %Af = tile.alloc_fragment : memref<64x32xf16, #tile.scope<fragment>>
    // CHECK: tile.copy %[[A]][%[[M]], 0] to %[[AS]] {pad = 0xFC00 : f16} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %As {pad = 0xFC00 : f16} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.copy %[[A]][%[[M]], 0] to %[[AS]] {pad = 1.000000e+00 : f16} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %As {pad = 1.0 : f16} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.copy %[[I]][%[[M]], 0] to %[[IS]] {pad = -1 : i8} : memref<?x?xi8> to memref<64x32xi8, #tile.scope<shared>>
    tile.copy %I[%m, 0] to %Is {pad = -1 : i8} : memref<?x?xi8> to memref<64x32xi8, #tile.scope<shared>>
    // `auto` is the default and is not printed.
    // CHECK: tile.copy %[[A]][%[[M]], 0] to %[[AS]] : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %As {inst = #tile.copy_inst<auto>} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.copy %[[A]][%[[M]], 0] to %[[AS]] {inst = #tile.copy_inst<vector>} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %As {inst = #tile.copy_inst<vector>} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.copy %[[A]][%[[M]], 0] to %[[AS]] {inst = #tile.copy_inst<cp_async>, pad = 0.000000e+00 : f16} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %As {inst = #tile.copy_inst<cp_async>, pad = 0.0 : f16} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.copy %[[A]][%[[M]], 0] to %[[AS]] {inst = #tile.copy_inst<tma>} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %As {inst = #tile.copy_inst<tma>} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    // CHECK: tile.copy %[[AS]] to %[[A]][%[[M]], 0] {inst = #tile.copy_inst<tma>} : memref<64x32xf16, #tile.scope<shared>> to memref<?x?xf16>
    tile.copy %As to %A[%m, 0] {inst = #tile.copy_inst<tma>} : memref<64x32xf16, #tile.scope<shared>> to memref<?x?xf16>
    // CHECK: tile.copy %[[AS]] to %[[AF]] {inst = #tile.copy_inst<ldmatrix>} : memref<64x32xf16, #tile.scope<shared>> to memref<64x32xf16, #tile.scope<fragment>>
    tile.copy %As to %Af {inst = #tile.copy_inst<ldmatrix>} : memref<64x32xf16, #tile.scope<shared>> to memref<64x32xf16, #tile.scope<fragment>>
    // CHECK: tile.copy %[[AF]] to %[[AS]] {inst = #tile.copy_inst<stmatrix>} : memref<64x32xf16, #tile.scope<fragment>> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %Af to %As {inst = #tile.copy_inst<stmatrix>} : memref<64x32xf16, #tile.scope<fragment>> to memref<64x32xf16, #tile.scope<shared>>
    // Vector copies between any scopes.
    // CHECK: tile.copy %[[AF]][0, 0] [32, 32] to %[[AS]][32, 0] [32, 32] {inst = #tile.copy_inst<vector>} : memref<64x32xf16, #tile.scope<fragment>> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %Af[0, 0] [32, 32] to %As[32, 0] {inst = #tile.copy_inst<vector>} : memref<64x32xf16, #tile.scope<fragment>> to memref<64x32xf16, #tile.scope<shared>>
  }
  return
}

// Copies into and out of local buffers, and of index and integer data.
// CHECK-LABEL: func.func @local_and_integers
// CHECK-SAME: (%[[X:.*]]: memref<?xi32>, %[[IDX:.*]]: memref<8xindex>, %[[I:.*]]: index)
func.func @local_and_integers(%X: memref<?xi32>, %Idx: memref<8xindex>, %i: index) {
  tile.kernel (%bx) in (1) threads(32) {
    // CHECK: %[[L:.*]] = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    %l = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    // CHECK: %[[LI:.*]] = tile.alloc_local : memref<8xindex, #tile.scope<local>>
    %li = tile.alloc_local : memref<8xindex, #tile.scope<local>>
    // CHECK: tile.copy %[[X]][%[[I]]] to %[[L]] : memref<?xi32> to memref<4xi32, #tile.scope<local>>
    tile.copy %X[%i] to %l : memref<?xi32> to memref<4xi32, #tile.scope<local>>
    // A region of a local buffer to global memory.
    // CHECK: tile.copy %[[L]][1] [2] to %[[X]][%[[I]]] [2] : memref<4xi32, #tile.scope<local>> to memref<?xi32>
    tile.copy %l[1] [2] to %X[%i] : memref<4xi32, #tile.scope<local>> to memref<?xi32>
    // CHECK: tile.copy %[[IDX]] to %[[LI]] : memref<8xindex> to memref<8xindex, #tile.scope<local>>
    tile.copy %Idx to %li : memref<8xindex> to memref<8xindex, #tile.scope<local>>
  }
  return
}
