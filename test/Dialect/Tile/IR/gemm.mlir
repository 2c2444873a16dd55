// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of tile.gemm: operand scopes, transposes, clear_accum,
// policies and every legal element type combination.

// CHECK-LABEL: func.func @gemm_basic
func.func @gemm_basic() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[A:.*]] = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // CHECK: %[[B:.*]] = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    // CHECK: %[[C:.*]] = tile.alloc_fragment : memref<128x64xf32, #tile.scope<fragment>>
    %c = tile.alloc_fragment : memref<128x64xf32, #tile.scope<fragment>>
    // The default policy (square) is not printed.
    // CHECK: tile.gemm %[[A]], %[[B]], %[[C]] : memref<128x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<128x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm %[[A]], %[[B]], %[[C]] : memref<128x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c {policy = #tile.policy<square>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm %[[A]], %[[B]], %[[C]] {clear_accum, policy = #tile.policy<full_row>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c {clear_accum, policy = #tile.policy<full_row>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm %[[A]], %[[B]], %[[C]] {policy = #tile.policy<full_col>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c {policy = #tile.policy<full_col>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
  }
  return
}

// CHECK-LABEL: func.func @gemm_transposes
func.func @gemm_transposes() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[AT:.*]] = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %at = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    // CHECK: %[[A:.*]] = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // CHECK: %[[BT:.*]] = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %bt = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK: %[[B:.*]] = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    // CHECK: %[[C:.*]] = tile.alloc_fragment : memref<128x64xf16, #tile.scope<fragment>>
    %c = tile.alloc_fragment : memref<128x64xf16, #tile.scope<fragment>>
    // A is K x M with transpose_a, B is N x K with transpose_b.
    // CHECK: tile.gemm %[[AT]], %[[B]], %[[C]] {transpose_a} : memref<32x128xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf16, #tile.scope<fragment>>
    tile.gemm %at, %b, %c {transpose_a} : memref<32x128xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<128x64xf16, #tile.scope<fragment>>
    // CHECK: tile.gemm %[[A]], %[[BT]], %[[C]] {transpose_b} : memref<128x32xf16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>, memref<128x64xf16, #tile.scope<fragment>>
    tile.gemm %a, %bt, %c {transpose_b} : memref<128x32xf16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>, memref<128x64xf16, #tile.scope<fragment>>
    // CHECK: tile.gemm %[[AT]], %[[BT]], %[[C]] {clear_accum, policy = #tile.policy<full_row>, transpose_a, transpose_b} : memref<32x128xf16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>, memref<128x64xf16, #tile.scope<fragment>>
    tile.gemm %at, %bt, %c {transpose_a, transpose_b, clear_accum, policy = #tile.policy<full_row>} : memref<32x128xf16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>, memref<128x64xf16, #tile.scope<fragment>>
  }
  return
}

// A and B may be fragments (register-resident operands).
// CHECK-LABEL: func.func @gemm_fragment_operands
func.func @gemm_fragment_operands() {
  tile.kernel (%bx) in (1) threads(128) {
    // CHECK: %[[P:.*]] = tile.alloc_fragment : memref<64x64xbf16, #tile.scope<fragment>>
    %p = tile.alloc_fragment : memref<64x64xbf16, #tile.scope<fragment>>
    // CHECK: %[[V:.*]] = tile.alloc_shared : memref<64x128xbf16, #tile.scope<shared>>
    %v = tile.alloc_shared : memref<64x128xbf16, #tile.scope<shared>>
    // CHECK: %[[VF:.*]] = tile.alloc_fragment : memref<64x128xbf16, #tile.scope<fragment>>
    %vf = tile.alloc_fragment : memref<64x128xbf16, #tile.scope<fragment>>
    // CHECK: %[[O:.*]] = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    %o = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm %[[P]], %[[V]], %[[O]] : memref<64x64xbf16, #tile.scope<fragment>>, memref<64x128xbf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>
    tile.gemm %p, %v, %o : memref<64x64xbf16, #tile.scope<fragment>>, memref<64x128xbf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm %[[P]], %[[VF]], %[[O]] : memref<64x64xbf16, #tile.scope<fragment>>, memref<64x128xbf16, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
    tile.gemm %p, %vf, %o : memref<64x64xbf16, #tile.scope<fragment>>, memref<64x128xbf16, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
  }
  return
}

// Every legal element type combination.
// CHECK-LABEL: func.func @gemm_element_types
func.func @gemm_element_types() {
  tile.kernel (%bx) in (1) threads(128) {
    %f32 = tile.alloc_shared : memref<16x16xf32, #tile.scope<shared>>
    %f16 = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %bf16 = tile.alloc_shared : memref<16x16xbf16, #tile.scope<shared>>
    %e4m3 = tile.alloc_shared : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    %e5m2 = tile.alloc_shared : memref<16x16xf8E5M2, #tile.scope<shared>>
    %e4m3z = tile.alloc_shared : memref<16x16xf8E4M3FNUZ, #tile.scope<shared>>
    %e5m2z = tile.alloc_shared : memref<16x16xf8E5M2FNUZ, #tile.scope<shared>>
    %i8 = tile.alloc_shared : memref<16x16xi8, #tile.scope<shared>>
    %acc32 = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    %acc16 = tile.alloc_fragment : memref<16x16xf16, #tile.scope<fragment>>
    %acci = tile.alloc_fragment : memref<16x16xi32, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %f16, %f16, %acc32 : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<fragment>>
    tile.gemm %f16, %f16, %acc16 : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<16x16xbf16, #tile.scope<shared>>, memref<16x16xbf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %bf16, %bf16, %acc32 : memref<16x16xbf16, #tile.scope<shared>>, memref<16x16xbf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %f32, %f32, %acc32 : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf8E5M2, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %e4m3, %e5m2, %acc32 : memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf8E5M2, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<16x16xf8E5M2, #tile.scope<shared>>, memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<fragment>>
    tile.gemm %e5m2, %e4m3, %acc16 : memref<16x16xf8E5M2, #tile.scope<shared>>, memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<16x16xf8E4M3FNUZ, #tile.scope<shared>>, memref<16x16xf8E5M2FNUZ, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %e4m3z, %e5m2z, %acc32 : memref<16x16xf8E4M3FNUZ, #tile.scope<shared>>, memref<16x16xf8E5M2FNUZ, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} : memref<16x16xi8, #tile.scope<shared>>, memref<16x16xi8, #tile.scope<shared>>, memref<16x16xi32, #tile.scope<fragment>>
    tile.gemm %i8, %i8, %acci : memref<16x16xi8, #tile.scope<shared>>, memref<16x16xi8, #tile.scope<shared>>, memref<16x16xi32, #tile.scope<fragment>>
  }
  return
}

// wgmma with two warpgroups along N: each an m64n32 instruction on its
// half of the 64x64 output.
// CHECK-LABEL: func.func @mma_choice_along_n
func.func @mma_choice_along_n() {
  tile.kernel (%bx) in (1) threads(256) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n32k16, warps = [4, 2]>}
    tile.gemm %a, %b, %c {mma = #tile.mma<wgmma, m64n32k16, warps = [4, 2]>} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// The instruction choice of tile-select-mma (#tile.mma) round-trips on
// tile.gemm and tile.gemm_sp.
// CHECK-LABEL: func.func @mma_choice
func.func @mma_choice() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %as = tile.alloc_shared : memref<64x16xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x2xi16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n64k16, warps = [4, 1]>}
    tile.gemm %a, %b, %c {mma = #tile.mma<wgmma, m64n64k16, warps = [4, 1]>} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>, policy = #tile.policy<full_row>}
    tile.gemm %a, %b, %c {policy = #tile.policy<full_row>, mma = #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: tile.gemm_sp {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 4]>}
    tile.gemm_sp %as, %e, %b, %c {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 4]>} : memref<64x16xf16, #tile.scope<shared>>, memref<64x2xi16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}
