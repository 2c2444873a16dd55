// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.gemm_sp: metadata widths, transpose_b, clear_accum,
// policies and element types.

// CHECK-LABEL: func.func @gemm_sp_basic
func.func @gemm_sp_basic() {
  tile.kernel (%bx) in (1) threads(128) {
    // K = 64: A is 128 x 32, E is 128 x 64/16 with i16 metadata.
    // CHECK: %[[A:.*]] = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // CHECK: %[[E:.*]] = tile.alloc_shared : memref<128x4xi16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<128x4xi16, #tile.scope<shared>>
    // CHECK: %[[B:.*]] = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    // CHECK: %[[C:.*]] = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm_sp %[[A]], %[[E]], %[[B]], %[[C]] : memref<128x32xf16, #tile.scope<shared>>, memref<128x4xi16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm_sp %a, %e, %b, %c : memref<128x32xf16, #tile.scope<shared>>, memref<128x4xi16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm_sp %[[A]], %[[E]], %[[B]], %[[C]] {clear_accum, policy = #tile.policy<full_col>} : memref<128x32xf16, #tile.scope<shared>>, memref<128x4xi16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm_sp %a, %e, %b, %c {clear_accum, policy = #tile.policy<full_col>} : memref<128x32xf16, #tile.scope<shared>>, memref<128x4xi16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
  }
  return
}

// CHECK-LABEL: func.func @gemm_sp_transpose_and_metadata
func.func @gemm_sp_transpose_and_metadata() {
  tile.kernel (%bx) in (1) threads(128) {
    // K = 64, N = 32, B given as N x K.
    // CHECK: %[[A:.*]] = tile.alloc_fragment : memref<64x32xbf16, #tile.scope<fragment>>
    %a = tile.alloc_fragment : memref<64x32xbf16, #tile.scope<fragment>>
    // CHECK: %[[E8:.*]] = tile.alloc_fragment : memref<64x8xi8, #tile.scope<fragment>>
    %e8 = tile.alloc_fragment : memref<64x8xi8, #tile.scope<fragment>>
    // CHECK: %[[E32:.*]] = tile.alloc_shared : memref<64x2xi32, #tile.scope<shared>>
    %e32 = tile.alloc_shared : memref<64x2xi32, #tile.scope<shared>>
    // CHECK: %[[BT:.*]] = tile.alloc_shared : memref<32x64xbf16, #tile.scope<shared>>
    %bt = tile.alloc_shared : memref<32x64xbf16, #tile.scope<shared>>
    // CHECK: %[[C:.*]] = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    %c = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm_sp %[[A]], %[[E8]], %[[BT]], %[[C]] {transpose_b} : memref<64x32xbf16, #tile.scope<fragment>>, memref<64x8xi8, #tile.scope<fragment>>, memref<32x64xbf16, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<fragment>>
    tile.gemm_sp %a, %e8, %bt, %c {transpose_b} : memref<64x32xbf16, #tile.scope<fragment>>, memref<64x8xi8, #tile.scope<fragment>>, memref<32x64xbf16, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm_sp %[[A]], %[[E32]], %[[BT]], %[[C]] {policy = #tile.policy<full_row>, transpose_b} : memref<64x32xbf16, #tile.scope<fragment>>, memref<64x2xi32, #tile.scope<shared>>, memref<32x64xbf16, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<fragment>>
    tile.gemm_sp %a, %e32, %bt, %c {transpose_b, policy = #tile.policy<full_row>} : memref<64x32xbf16, #tile.scope<fragment>>, memref<64x2xi32, #tile.scope<shared>>, memref<32x64xbf16, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<fragment>>
  }
  return
}

// CHECK-LABEL: func.func @gemm_sp_element_types
func.func @gemm_sp_element_types() {
  tile.kernel (%bx) in (1) threads(128) {
    %e = tile.alloc_shared : memref<16x2xi16, #tile.scope<shared>>
    %a16 = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %b16 = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    %a8 = tile.alloc_shared : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    %b8 = tile.alloc_shared : memref<32x16xf8E5M2, #tile.scope<shared>>
    %ai = tile.alloc_shared : memref<16x16xi8, #tile.scope<shared>>
    %bi = tile.alloc_shared : memref<32x16xi8, #tile.scope<shared>>
    %c16 = tile.alloc_fragment : memref<16x16xf16, #tile.scope<fragment>>
    %c32 = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    %ci = tile.alloc_fragment : memref<16x16xi32, #tile.scope<fragment>>
    // CHECK: tile.gemm_sp {{.*}} : memref<16x16xf16, #tile.scope<shared>>, memref<16x2xi16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<fragment>>
    tile.gemm_sp %a16, %e, %b16, %c16 : memref<16x16xf16, #tile.scope<shared>>, memref<16x2xi16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<fragment>>
    // CHECK: tile.gemm_sp {{.*}} : memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x2xi16, #tile.scope<shared>>, memref<32x16xf8E5M2, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm_sp %a8, %e, %b8, %c32 : memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x2xi16, #tile.scope<shared>>, memref<32x16xf8E5M2, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm_sp {{.*}} : memref<16x16xi8, #tile.scope<shared>>, memref<16x2xi16, #tile.scope<shared>>, memref<32x16xi8, #tile.scope<shared>>, memref<16x16xi32, #tile.scope<fragment>>
    tile.gemm_sp %ai, %e, %bi, %ci : memref<16x16xi8, #tile.scope<shared>>, memref<16x2xi16, #tile.scope<shared>>, memref<32x16xi8, #tile.scope<shared>>, memref<16x16xi32, #tile.scope<fragment>>
  }
  return
}
