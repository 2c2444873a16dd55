// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.kernel: static, dynamic and mixed grids of one to
// three dimensions, threads, cluster and extra attributes.

// CHECK-LABEL: func.func @static_1d
func.func @static_1d() {
  // CHECK: tile.kernel (%[[BX:.*]]) in (16) threads(128) {
  tile.kernel (%bx) in (16) threads(128) {
    // CHECK-NEXT: %[[L:.*]] = tile.alloc_local : memref<1xindex, #tile.scope<local>>
    %l = tile.alloc_local : memref<1xindex, #tile.scope<local>>
    // CHECK-NEXT: tile.fill %[[L]], %[[BX]] : memref<1xindex, #tile.scope<local>>, index
    tile.fill %l, %bx : memref<1xindex, #tile.scope<local>>, index
  // CHECK-NEXT: }
  }
  return
}

// The block indices are printed as %bx, %by, %bz.
// CHECK-LABEL: func.func @block_index_names
func.func @block_index_names(%n: index) {
  // CHECK: tile.kernel (%bx, %by, %bz) in (2, 3, 4) threads(32)
  tile.kernel (%i, %j, %k) in (2, 3, 4) threads(32) {
  }
  return
}

// CHECK-LABEL: func.func @dynamic_2d
// CHECK-SAME: (%[[GX:.*]]: index, %[[GY:.*]]: index)
func.func @dynamic_2d(%gx: index, %gy: index) {
  // CHECK: tile.kernel (%[[BX:.*]], %[[BY:.*]]) in (%[[GX]], %[[GY]]) threads(256) {
  tile.kernel (%bx, %by) in (%gx, %gy) threads(256) {
    %l = tile.alloc_local : memref<2xindex, #tile.scope<local>>
    // CHECK: tile.fill %{{.*}}, %[[BX]]
    tile.fill %l, %bx : memref<2xindex, #tile.scope<local>>, index
    // CHECK: tile.fill %{{.*}}, %[[BY]]
    tile.fill %l, %by : memref<2xindex, #tile.scope<local>>, index
  }
  return
}

// CHECK-LABEL: func.func @mixed_3d
// CHECK-SAME: (%[[N:.*]]: index)
func.func @mixed_3d(%n: index) {
  // CHECK: tile.kernel (%{{.*}}, %{{.*}}, %{{.*}}) in (8, %[[N]], 2) threads(64) {
  tile.kernel (%bx, %by, %bz) in (8, %n, 2) threads(64) {
  }
  return
}

// CHECK-LABEL: func.func @cluster
func.func @cluster(%n: index) {
  // CHECK: tile.kernel (%{{.*}}, %{{.*}}) in (4, 8) threads(128) cluster(2, 1) {
  tile.kernel (%bx, %by) in (4, 8) threads(128) cluster(2, 1) {
  }
  // A cluster extent need not divide a dynamic grid extent.
  // CHECK: tile.kernel (%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}}, 2, 1) threads(384) cluster(4, 2, 1) {
  tile.kernel (%bx, %by, %bz) in (%n, 2, 1) threads(384) cluster(4, 2, 1) {
  }
  return
}

// Discardable attributes are kept in an `attributes` dictionary.
// CHECK-LABEL: func.func @extra_attributes
func.func @extra_attributes() {
  // CHECK: tile.kernel (%{{.*}}) in (1) threads(1) attributes {tag = "k0"} {
  tile.kernel (%bx) in (1) threads(1) attributes {tag = "k0"} {
  }
  // CHECK: tile.kernel (%{{.*}}) in (1) threads(1024) cluster(1) attributes {unit} {
  tile.kernel (%bx) in (1) threads(1024) cluster(1) attributes {unit} {
  }
  return
}

// Several kernels in one function, with values of the function used inside.
// CHECK-LABEL: func.func @two_kernels
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[N:.*]]: index)
func.func @two_kernels(%A: memref<?xf32>, %n: index) {
  // CHECK: tile.kernel (%[[B0:.*]]) in (%[[N]]) threads(128) {
  tile.kernel (%bx) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<128xf32, #tile.scope<shared>>
    // CHECK: tile.copy %[[A]][%[[B0]]] to %{{.*}} : memref<?xf32> to memref<128xf32, #tile.scope<shared>>
    tile.copy %A[%bx] to %s : memref<?xf32> to memref<128xf32, #tile.scope<shared>>
  }
  // CHECK: tile.kernel (%{{.*}}) in (%[[N]]) threads(256) {
  tile.kernel (%bx) in (%n) threads(256) {
    %s = tile.alloc_shared : memref<256xf32, #tile.scope<shared>>
    // CHECK: tile.copy %{{.*}} to %[[A]][0] : memref<256xf32, #tile.scope<shared>> to memref<?xf32>
    tile.copy %s to %A[0] : memref<256xf32, #tile.scope<shared>> to memref<?xf32>
  }
  return
}
