// tile-infer-layouts: the register layout each tile.alloc_fragment gets in
// its `tile.layout` attribute. On the NVIDIA targets a gemm accumulator gets
// the accumulator layout of mma.sync m16n8 atoms over the warp partition of
// the gemm's #tile.mma (tile-select-mma, run first); a layout pinned with
// tile.annotate_layout is kept; other fragments get the cyclic layout (element e on thread e mod T, register
// e floordiv T). The CPU keeps fragments without a layout. Every diagnostic
// of the pass is checked in the second part.
//
// RUN: rm -rf %t && split-file %s %t
//
// Layouts: the same on sm_80 and sm_90a, except for gemms that sm_90a runs
// as wgmma (one warpgroup per 64 rows: SM90 lines); the CPU changes nothing.
// RUN: tile-opt %t/layouts.mlir -split-input-file --tile-select-mma=target=sm_80 --tile-infer-layouts=target=sm_80 | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: tile-opt %t/layouts.mlir -split-input-file --tile-select-mma=target=sm_90a --tile-infer-layouts=target=sm_90a | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: tile-opt %t/layouts.mlir -split-input-file --tile-select-mma=target=cpu --tile-infer-layouts=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: tile-opt %t/layouts.mlir -split-input-file --pass-pipeline='builtin.module(tile-select-mma{target=sm_80},tile-infer-layouts{target=sm_80})' | FileCheck %s --check-prefixes=CHECK,SM80
//
// Diagnostics: each NVIDIA target, an unknown target.
// RUN: tile-opt %t/invalid.mlir -split-input-file --tile-select-mma=target=sm_80 --tile-infer-layouts=target=sm_80 -verify-diagnostics
// RUN: tile-opt %t/invalid.mlir -split-input-file --tile-select-mma=target=sm_90a --tile-infer-layouts=target=sm_90a -verify-diagnostics
// RUN: tile-opt %t/no-choice.mlir --tile-infer-layouts=target=sm_90a -verify-diagnostics
// RUN: tile-opt %t/unknown-target.mlir --tile-select-mma=target=sm_70 --tile-infer-layouts=target=sm_70 -verify-diagnostics
// A failing layout fails the pass (and tile-opt) without -verify-diagnostics.
// RUN: not tile-opt %t/invalid.mlir -split-input-file --tile-select-mma=target=sm_80 --tile-infer-layouts=target=sm_80 -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: error: 'tile.alloc_fragment' op has conflicting layouts
// FAIL: note: first required here
// FAIL: note: then required here

//--- layouts.mlir

// One warp, one 16x8 atom: lane = (row mod 8) * 4 + col / 2, register
// (row / 8) * 2 + col mod 2; the inverse walks (thread, register) back.
// CHECK-LABEL: func.func @one_warp_16x8
// CHECK: %[[C:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[16, 8], threads = 32, (d0, d1) -> ((d0 floordiv 16 + d1 floordiv 8) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, ((d0 mod 16) floordiv 16 + (d1 mod 8) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 32) * 16 + (d1 floordiv 4) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, (d0 mod 4) * 2 + d1 mod 2)>} : memref<16x8xf32, #tile.scope<fragment>>
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[C]] {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 1]>} :
// CPU-LABEL: func.func @one_warp_16x8
// CPU: tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
func.func @one_warp_16x8() {
  tile.kernel (%bx) in (1) threads(32) {
    %As = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x8xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C : memref<16x16xf16, #tile.scope<shared>>, memref<16x8xf16, #tile.scope<shared>>, memref<16x8xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// 128x128 over 4 warps. square: 2x2 warps of 64x64 (warp = (row / 64) * 2 +
// col / 64, 8 atoms along N per warp); full_row: 4x1 warps of 32x128;
// full_col: 1x4 warps of 128x32. Shared and local buffers get no layout.
// (On sm_90a too: 64-byte rows of K are no wgmma operands; the wgmma
// partition of one warpgroup over 128 rows is in lower-ops-sm90-2wg.mlir.)
// CHECK-LABEL: func.func @policies_128x128
// CHECK-NOT: tile.alloc_shared {
// CHECK: %[[SQ:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[128, 128], threads = 128, (d0, d1) -> (((d0 floordiv 64) * 2 + d1 floordiv 64) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (((d0 mod 64) floordiv 16) * 8 + (d1 mod 64) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 64) * 64 + (d1 floordiv 32) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d0 floordiv 32) mod 2) * 64 + ((d1 floordiv 4) mod 8) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<128x128xf32, #tile.scope<fragment>>
// CHECK: %[[ROW:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[128, 128], threads = 128, (d0, d1) -> ((d0 floordiv 32 + d1 floordiv 128) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (((d0 mod 32) floordiv 16) * 16 + (d1 mod 128) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 32) * 32 + (d1 floordiv 64) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d1 floordiv 4) mod 16) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<128x128xf32, #tile.scope<fragment>>
// CHECK: %[[COL:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[128, 128], threads = 128, (d0, d1) -> (((d0 floordiv 128) * 4 + d1 floordiv 32) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (((d0 mod 128) floordiv 16) * 4 + (d1 mod 32) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 128) * 128 + (d1 floordiv 16) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d0 floordiv 32) mod 4) * 32 + ((d1 floordiv 4) mod 4) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<128x128xf32, #tile.scope<fragment>>
// CHECK: tile.alloc_local : memref<4xf32, #tile.scope<local>>
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[SQ]] {mma = #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>} :
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[ROW]] {mma = #tile.mma<mma_sync, m16n8k16, warps = [4, 1]>, policy = #tile.policy<full_row>}
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[COL]] {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 4]>, policy = #tile.policy<full_col>}
// CPU-LABEL: func.func @policies_128x128
// CPU-NOT: tile.layout
// CPU: tile.gemm
func.func @policies_128x128() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Sq = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %Row = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %Col = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %L = tile.alloc_local : memref<4xf32, #tile.scope<local>>
    tile.gemm %As, %Bs, %Sq : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %Row {policy = #tile.policy<full_row>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %Col {policy = #tile.policy<full_col>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// square picks the most balanced warp tile the shape allows: 64x256 over 4
// warps is 1x4 warps of 64x64, not 2x2 warps of 32x128. On sm_90a the four
// warps are one warpgroup of wgmma m64n256 (warp w holds rows 16w..16w+15).
// CHECK-LABEL: func.func @square_64x256
// SM80: tile.alloc_fragment {tile.layout = #tile.fragment<[64, 256], threads = 128, (d0, d1) -> (((d0 floordiv 64) * 4 + d1 floordiv 64) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (((d0 mod 64) floordiv 16) * 8 + (d1 mod 64) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 128) * 64 + (d1 floordiv 32) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d0 floordiv 32) mod 4) * 64 + ((d1 floordiv 4) mod 8) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<64x256xf32, #tile.scope<fragment>>
// SM90: tile.alloc_fragment {tile.layout = #tile.fragment<[64, 256], threads = 128, (d0, d1) -> ((d0 floordiv 16 + d1 floordiv 256) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (((d0 mod 16) floordiv 16) * 32 + (d1 mod 256) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 32) * 16 + (d1 floordiv 128) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d1 floordiv 4) mod 32) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<64x256xf32, #tile.scope<fragment>
func.func @square_64x256() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x256xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x256xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C : memref<64x16xf16, #tile.scope<shared>>, memref<16x256xf16, #tile.scope<shared>>, memref<64x256xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// full_row needs M to be a multiple of 16 per warp: 32 rows over 4 warps
// do not split, and the policy falls back to square (1x4 warps of 32x32).
// The layout does not depend on transposed operands.
// CHECK-LABEL: func.func @full_row_fallback
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[32, 128], threads = 128, (d0, d1) -> (((d0 floordiv 32) * 4 + d1 floordiv 32) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (((d0 mod 32) floordiv 16) * 4 + (d1 mod 32) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 128) * 32 + (d1 floordiv 16) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d0 floordiv 32) mod 4) * 32 + ((d1 floordiv 4) mod 4) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<32x128xf32, #tile.scope<fragment>>
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 4]>, policy = #tile.policy<full_row>, transpose_a, transpose_b}
func.func @full_row_fallback() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<32x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<32x128xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C {policy = #tile.policy<full_row>, transpose_a, transpose_b} : memref<32x32xf16, #tile.scope<shared>>, memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// 8 warps: 128x256 square is 2x4 warps of 64x64; on sm_90a two warpgroups
// of 64 rows.
// CHECK-LABEL: func.func @eight_warps
// SM80: tile.alloc_fragment {tile.layout = #tile.fragment<[128, 256], threads = 256, (d0, d1) -> (((d0 floordiv 64) * 4 + d1 floordiv 64) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (((d0 mod 64) floordiv 16) * 8 + (d1 mod 64) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 128) * 64 + (d1 floordiv 32) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d0 floordiv 32) mod 4) * 64 + ((d1 floordiv 4) mod 8) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<128x256xf32, #tile.scope<fragment>>
// SM90: tile.alloc_fragment {tile.layout = #tile.fragment<[128, 256], threads = 256, (d0, d1) -> ((d0 floordiv 16 + d1 floordiv 256) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (((d0 mod 16) floordiv 16) * 32 + (d1 mod 256) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 32) * 16 + (d1 floordiv 128) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d1 floordiv 4) mod 32) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<128x256xf32, #tile.scope<fragment>
func.func @eight_warps() {
  tile.kernel (%bx, %by) in (2, 2) threads(256) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x256xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %C : memref<128x256xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C {clear_accum} : memref<128x32xf16, #tile.scope<shared>>, memref<32x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Fragments that are no gemm's accumulator are cyclic: element e (row-major)
// on thread e mod T, register e floordiv T. A tile smaller than the block
// leaves threads without elements (the inverse wraps around; the lowering
// guards those registers). A fragment gemm operand (A) is no anchor.
// CHECK-LABEL: func.func @cyclic
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[64], threads = 128, (d0) -> (d0 mod 128, d0 floordiv 128), inverse = (d0, d1) -> (d0 mod 64)>} : memref<64xf32, #tile.scope<fragment>>
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[16, 32], threads = 128, (d0, d1) -> ((d0 * 32 + d1) mod 128, (d0 * 32 + d1) floordiv 128), inverse = (d0, d1) -> ((d1 * 4 + d0 floordiv 32) mod 16, d0 mod 32)>} : memref<16x32xf16, #tile.scope<fragment>>
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[4, 8, 16], threads = 128, (d0, d1, d2) -> ((d0 * 128 + d1 * 16 + d2) mod 128, (d0 * 128 + d1 * 16 + d2) floordiv 128), inverse = (d0, d1) -> ((d1 + d0 floordiv 128) mod 4, (d0 floordiv 16) mod 8, d0 mod 16)>} : memref<4x8x16xf32, #tile.scope<fragment>>
// CHECK: %[[A:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64, 16], threads = 128, (d0, d1) -> ((d0 * 16 + d1) mod 128, (d0 * 16 + d1) floordiv 128), inverse = (d0, d1) -> ((d1 * 8 + d0 floordiv 16) mod 64, d0 mod 16)>} : memref<64x16xf16, #tile.scope<fragment>>
// SM80: %[[C:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64, 64], threads = 128, (d0, d1) -> (((d0 floordiv 32) * 2 + d1 floordiv 32) * 32
// SM90: %[[C:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64, 64], threads = 128, (d0, d1) -> ((d0 floordiv 16 + d1 floordiv 64) * 32
// CHECK: tile.gemm %[[A]], %{{.*}}, %[[C]] {mma = {{.*}}} :
func.func @cyclic(%x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    %F = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %G = tile.alloc_fragment : memref<16x32xf16, #tile.scope<fragment>>
    %H = tile.alloc_fragment : memref<4x8x16xf32, #tile.scope<fragment>>
    %A = tile.alloc_fragment : memref<64x16xf16, #tile.scope<fragment>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.fill %F, %x : memref<64xf32, #tile.scope<fragment>>, f32
    tile.gemm %A, %Bs, %C : memref<64x16xf16, #tile.scope<fragment>>, memref<16x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A pinned layout is kept as written (with or without an inverse, with
// replicas), and the annotation stays for the lowering. A fragment pinned
// by several annotations of the same layout has no conflict.
// CHECK-LABEL: func.func @pinned
// CHECK: %[[P:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64], threads = 128, (d0) -> (d0 floordiv 2, d0 mod 2)>} : memref<64xf32, #tile.scope<fragment>>
// CHECK: %[[Q:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[16], threads = 128, (d0) -> (d0, 0), replicate = 8>} : memref<16xf32, #tile.scope<fragment>>
// CHECK: %[[R:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64], threads = 128, (d0) -> (d0 mod 64, 0), replicate = 2, inverse = (d0, d1) -> (d0 mod 64)>} : memref<64xf32, #tile.scope<fragment>>
// CHECK: tile.annotate_layout %[[P]] layout(#tile.fragment<[64], threads = 128, (d0) -> (d0 floordiv 2, d0 mod 2)>)
// CHECK: tile.annotate_layout %[[Q]] layout(#tile.fragment<[16], threads = 128, (d0) -> (d0, 0), replicate = 8>)
// CHECK: tile.annotate_layout %[[R]] layout(
// CHECK: tile.annotate_layout %[[R]] layout(
// CPU-LABEL: func.func @pinned
// CPU: tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
func.func @pinned() {
  tile.kernel (%bx) in (1) threads(128) {
    %P = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %Q = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    %R = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.annotate_layout %P layout(#tile.fragment<[64], threads = 128, (d0) -> (d0 floordiv 2, d0 mod 2)>) : memref<64xf32, #tile.scope<fragment>>
    tile.annotate_layout %Q layout(#tile.fragment<[16], threads = 128, (d0) -> (d0, 0), replicate = 8>) : memref<16xf32, #tile.scope<fragment>>
    tile.annotate_layout %R layout(#tile.fragment<[64], threads = 128, (d0) -> (d0 mod 64, 0), replicate = 2, inverse = (d0, d1) -> (d0 mod 64)>) : memref<64xf32, #tile.scope<fragment>>
    tile.annotate_layout %R layout(#tile.fragment<[64], threads = 128, (d0) -> (d0 mod 64, 0), replicate = 2, inverse = (d0, d1) -> (d0 mod 64)>) : memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Layouts spread from the accumulator %S (4 warps, 16 rows each): the cast
// copy %P gets its layout, the row maximum %M the row layout (row i on the
// 4 lanes (i mod 8) * 4 + c of warp i floordiv 16, register (i mod 16)
// floordiv 8), and %N, which a loop fills from %M, the same row layout;
// %O, which nothing anchors, is cyclic. The order of the ops does not
// matter (a fixed point).
// CHECK-LABEL: func.func @spread
// CHECK: %[[ROW:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64], threads = 128, (d0) -> ((d0 floordiv 16) * 32 + (d0 mod 8) * 4, (d0 mod 16) floordiv 8), replicate = 4, inverse = (d0, d1) -> ((d0 floordiv 32) * 16 + d1 * 8 + (d0 mod 32) floordiv 4)>} : memref<64xf32, #tile.scope<fragment>>
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[64], threads = 128, (d0) -> ((d0 floordiv 16) * 32 + (d0 mod 8) * 4, (d0 mod 16) floordiv 8), replicate = 4, inverse = (d0, d1) -> ((d0 floordiv 32) * 16 + d1 * 8 + (d0 mod 32) floordiv 4)>} : memref<64xf32, #tile.scope<fragment>>
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[64], threads = 128, (d0) -> (d0 mod 128, d0 floordiv 128), inverse = (d0, d1) -> (d0 mod 64)>} : memref<64xf32, #tile.scope<fragment>>
// CHECK: %[[ACC:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64, 64], threads = 128, [[ACCMAP:.*]]>} : memref<64x64xf32, #tile.scope<fragment>>
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[64, 64], threads = 128, [[ACCMAP]]>} : memref<64x64xf16, #tile.scope<fragment>>
// CPU-LABEL: func.func @spread
// CPU-NOT: tile.layout
func.func @spread(%A: memref<64x64xf16>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    %N = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %M = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %O = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    %As = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    tile.fill %O, %x : memref<64xf32, #tile.scope<fragment>>, f32
    tile.parallel (%i) in (64) {
      %m = memref.load %M[%i] : memref<64xf32, #tile.scope<fragment>>
      memref.store %m, %N[%i] : memref<64xf32, #tile.scope<fragment>>
    }
    tile.copy %S[0, 0] [64, 64] to %P[0, 0] [64, 64] : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf16, #tile.scope<fragment>>
    tile.reduce max %S into %M dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.gemm %As, %As, %S {policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A tile reduced along its rows that nothing anchors gets the row-split
// layout: row i on the 32 lanes of warp i mod 4, each lane 4 consecutive
// columns of every 128 (16 bytes of f32), so the reduction needs no other
// warp; its row vector gets the matching row layout (replicated over the
// 32 lanes).
// CHECK-LABEL: func.func @row_split
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[16, 256], threads = 128, (d0, d1) -> ((d0 mod 4) * 32 + (d1 floordiv 4) mod 32, ((d0 floordiv 4) * 2 + d1 floordiv 128) * 4 + d1 mod 4), inverse = {{.*}}>} : memref<16x256xf32, #tile.scope<fragment>>
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[16], threads = 128, (d0) -> ((d0 mod 4) * 32, d0 floordiv 4), replicate = 32, inverse = {{.*}}>} : memref<16xf32, #tile.scope<fragment>>
// CPU-LABEL: func.func @row_split
// CPU-NOT: tile.layout
func.func @row_split(%X: memref<16x256xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %x = tile.alloc_fragment : memref<16x256xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    tile.copy %X[0, 0] [16, 256] to %x[0, 0] [16, 256] : memref<16x256xf16> to memref<16x256xf32, #tile.scope<fragment>>
    tile.reduce max %x into %m dim = 1 : memref<16x256xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Fewer rows than warps (one row a block, as TileLang's softmax and norm
// examples have it): the row spans every warp. Lane l of the 128 holds
// columns 8l..8l+7 of every 1024 (16 bytes of f16), the row vector is
// replicated over all 128 threads, and the reduction meets in shared
// memory after the shuffles. Two rows on 256 threads: each on 128 of them.
// CHECK-LABEL: func.func @row_over_warps
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[1, 8192], threads = 128, (d0, d1) -> ((d1 floordiv 8) mod 128, d0 * 64 + (d1 floordiv 1024) * 8 + d1 mod 8), inverse = (d0, d1) -> (d1 floordiv 64 + d0 floordiv 128, ((d1 mod 64) floordiv 8) * 1024 + (d0 mod 128) * 8 + d1 mod 8)>} : memref<1x8192xf16, #tile.scope<fragment>>
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[1], threads = 128, (d0) -> (0, d0), replicate = 128, inverse = (d0, d1) -> (d1 + d0 floordiv 128)>} : memref<1xf16, #tile.scope<fragment>>
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[2, 2048], threads = 256, (d0, d1) -> ((d0 mod 2) * 128 + (d1 floordiv 4) mod 128, (d0 floordiv 2) * 16 + (d1 floordiv 512) * 4 + d1 mod 4), inverse = {{.*}}>} : memref<2x2048xf32, #tile.scope<fragment>>
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[2], threads = 256, (d0) -> ((d0 mod 2) * 128, d0 floordiv 2), replicate = 128, inverse = {{.*}}>} : memref<2xf32, #tile.scope<fragment>>
// CPU-LABEL: func.func @row_over_warps
// CPU-NOT: tile.layout
func.func @row_over_warps(%X: memref<8192x8192xf16>, %Y: memref<64x2048xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %x = tile.alloc_fragment : memref<1x8192xf16, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<1xf16, #tile.scope<fragment>>
    tile.copy %X[0, 0] [1, 8192] to %x[0, 0] [1, 8192] : memref<8192x8192xf16> to memref<1x8192xf16, #tile.scope<fragment>>
    tile.reduce max %x into %m dim = 1 : memref<1x8192xf16, #tile.scope<fragment>> into memref<1xf16, #tile.scope<fragment>>
  }
  tile.kernel (%bx) in (1) threads(256) {
    %y = tile.alloc_fragment : memref<2x2048xf32, #tile.scope<fragment>>
    %s = tile.alloc_fragment : memref<2xf32, #tile.scope<fragment>>
    tile.copy %Y[0, 0] [2, 2048] to %y[0, 0] [2, 2048] : memref<64x2048xf32> to memref<2x2048xf32, #tile.scope<fragment>>
    tile.reduce sum %y into %s dim = 1 : memref<2x2048xf32, #tile.scope<fragment>> into memref<2xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// 64 rows on two warpgroups, fed by TMA: sm_90a runs the gemm as two m64n32
// wgmmas, warpgroup g on columns 32g .. 32g + 31, warp q of it on rows
// 16q .. 16q + 15 (warps numbered along M first), registers in the order
// of one m64n32 accumulator; the row maximum is replicated over the 4
// lanes of a row in both warpgroups. sm_80 keeps square's 2x4 warps.
// CHECK-LABEL: func.func @wgmma_warpgroups_along_n
// SM90: %[[C:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64, 64], threads = 256, (d0, d1) -> (((d1 floordiv 32) * 4 + d0 floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (((d0 mod 16) floordiv 16) * 4 + (d1 mod 32) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> (((d0 floordiv 32) mod 4) * 16 + (d1 floordiv 16) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, (d0 floordiv 128) * 32 + ((d1 floordiv 4) mod 4) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<64x64xf32, #tile.scope<fragment>>
// SM90: %[[R:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64], threads = 256, (d0) -> ((d0 floordiv 16) * 32 + (d0 mod 8) * 4, (d0 mod 16) floordiv 8), replicate = 8, inverse = (d0, d1) -> (((d0 floordiv 32) mod 4) * 16 + d1 * 8 + (d0 mod 32) floordiv 4)>} : memref<64xf32, #tile.scope<fragment>>
// SM90: tile.gemm %{{.*}}, %{{.*}}, %[[C]] {mma = #tile.mma<wgmma, m64n32k16, warps = [4, 2]>, transpose_b}
// SM80: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [2, 4]>, transpose_b}
// CPU-LABEL: func.func @wgmma_warpgroups_along_n
// CPU-NOT: tile.layout
func.func @wgmma_warpgroups_along_n(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (16, 16) threads(256) {
    %As = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %R = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%by, %k0] to %As : memref<1024x1024xf16> to memref<64x64xf16, #tile.scope<shared>>
      tile.copy %B[%bx, %k0] to %Bs : memref<1024x1024xf16> to memref<64x64xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %C {transpose_b} : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.reduce max %C into %R dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A tile.layout already on a fragment is replaced by the inferred one.
// CHECK-LABEL: func.func @rerun
// CHECK: tile.alloc_fragment {tile.layout = #tile.fragment<[32], threads = 32, (d0) -> (d0 mod 32, d0 floordiv 32), inverse = (d0, d1) -> (d0 mod 32)>} : memref<32xf32, #tile.scope<fragment>>
// CPU-LABEL: func.func @rerun
// CPU: tile.alloc_fragment {tile.layout = #tile.fragment<[32], threads = 32, (d0) -> (-d0 + 31, 0)>} : memref<32xf32, #tile.scope<fragment>>
func.func @rerun(%x: f32) {
  tile.kernel (%bx) in (1) threads(32) {
    %F = tile.alloc_fragment {tile.layout = #tile.fragment<[32], threads = 32, (d0) -> (31 - d0, 0)>} : memref<32xf32, #tile.scope<fragment>>
    tile.fill %F, %x : memref<32xf32, #tile.scope<fragment>>, f32
  }
  return
}

// -----

// A reducer updated only at the rows of a parallel loop becomes a fragment
// of the loop's row layout (the loop's tile, which nothing else fixes, is
// row-split: a row on 8 lanes, 4 floats a lane); one updated at the
// columns stays a local buffer. The CPU keeps both.
// CHECK-LABEL: func.func @reducers
// CHECK: %[[ROWS:.*]] = tile.alloc_fragment {tile.layout = #tile.fragment<[64], threads = 128, {{.*}}, replicate = 8, {{.*}}>} : memref<64xf32, #tile.scope<fragment>>
// CHECK: %[[COLS:.*]] = tile.alloc_local : memref<32xf32, #tile.scope<local>>
// CHECK: tile.finalize_reducer sum %[[ROWS]]
// CHECK: tile.finalize_reducer sum %[[COLS]]
// CPU-LABEL: func.func @reducers
// CPU-COUNT-2: tile.alloc_local
func.func @reducers(%a: memref<64x32xf32>, %o: memref<?xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %rows = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    %cols = tile.alloc_local : memref<32xf32, #tile.scope<local>>
    tile.clear %rows : memref<64xf32, #tile.scope<local>>
    tile.clear %cols : memref<32xf32, #tile.scope<local>>
    %f = tile.alloc_fragment : memref<64x32xf32, #tile.scope<fragment>>
    tile.copy %a[0, 0] [64, 32] to %f[0, 0] [64, 32] : memref<64x32xf32> to memref<64x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 32) {
      %v = memref.load %f[%i, %j] : memref<64x32xf32, #tile.scope<fragment>>
      %r = memref.load %rows[%i] : memref<64xf32, #tile.scope<local>>
      %s = arith.addf %r, %v : f32
      memref.store %s, %rows[%i] : memref<64xf32, #tile.scope<local>>
      %c = memref.load %cols[%j] : memref<32xf32, #tile.scope<local>>
      %t = arith.addf %c, %v : f32
      memref.store %t, %cols[%j] : memref<32xf32, #tile.scope<local>>
      tile.yield
    }
    tile.finalize_reducer sum %rows : memref<64xf32, #tile.scope<local>>
    tile.finalize_reducer sum %cols : memref<32xf32, #tile.scope<local>>
    tile.copy %rows[0] [64] to %o[0] [64] : memref<64xf32, #tile.scope<local>> to memref<?xf32>
  }
  return
}

//--- invalid.mlir

// Two gemms want different accumulator layouts for one fragment (square and
// full_row): reported at the fragment, with notes at both gemms in program
// order.
func.func @conflicting_policies() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    // expected-error-re @below {{'tile.alloc_fragment' op has conflicting layouts: #tile.fragment<[128, 128], threads = 128, (d0, d1) -> {{.*}}> and #tile.fragment<[128, 128], threads = 128, (d0, d1) -> ((d0 floordiv 32 + d1 floordiv 128) * 32 {{.*}}>}}
    %C = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    // expected-note @below {{first required here}}
    tile.gemm %As, %Bs, %C : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    // expected-note @below {{then required here}}
    tile.gemm %As, %Bs, %C {policy = #tile.policy<full_row>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A pinned layout that is not the gemm's accumulator layout.
func.func @conflicting_pin() {
  tile.kernel (%bx) in (1) threads(32) {
    %As = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x8xf16, #tile.scope<shared>>
    // expected-error-re @below {{'tile.alloc_fragment' op has conflicting layouts: #tile.fragment<[16, 8], threads = 32, (d0, d1) -> ((d0 * 8 + d1) mod 32, (d0 * 8 + d1) floordiv 32)> and #tile.fragment<[16, 8], threads = 32, (d0, d1) -> ((d0 floordiv 16 + d1 floordiv 8) * 32 + (d0 mod 8) * 4 {{.*}}>}}
    %C = tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
    // expected-note @below {{first required here}}
    tile.annotate_layout %C layout(#tile.fragment<[16, 8], threads = 32, (d0, d1) -> ((d0 * 8 + d1) mod 32, (d0 * 8 + d1) floordiv 32)>) : memref<16x8xf32, #tile.scope<fragment>>
    // expected-note @below {{then required here}}
    tile.gemm %As, %Bs, %C : memref<16x16xf16, #tile.scope<shared>>, memref<16x8xf16, #tile.scope<shared>>, memref<16x8xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A pinned layout over another number of threads than the kernel's.
func.func @pin_over_wrong_threads() {
  tile.kernel (%bx) in (1) threads(128) {
    %F = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.annotate_layout' op needs a layout over 64 threads, but the kernel has 128}}
    tile.annotate_layout %F layout(#tile.fragment<[64], threads = 64, (d0) -> (d0, 0)>) : memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Every fragment is checked: both kernels report.
func.func @each_fragment() {
  tile.kernel (%bx) in (1) threads(64) {
    %F = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.annotate_layout' op needs a layout over 32 threads, but the kernel has 64}}
    tile.annotate_layout %F layout(#tile.fragment<[32], threads = 32, (d0) -> (d0, 0)>) : memref<32xf32, #tile.scope<fragment>>
  }
  tile.kernel (%bx) in (1) threads(32) {
    %G = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.annotate_layout' op needs a layout over 64 threads, but the kernel has 32}}
    tile.annotate_layout %G layout(#tile.fragment<[32], threads = 64, (d0) -> (d0, 0)>) : memref<32xf32, #tile.scope<fragment>>
  }
  return
}

//--- unknown-target.mlir

// expected-error @below {{unknown target 'sm_70'; expected one of cpu, sm_80, sm_90a, gfx942}}
module {
  func.func @f() {
    tile.kernel (%bx) in (1) threads(32) {
      %F = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    }
    return
  }
}

//--- no-choice.mlir
// A gemm reaches the pass without the instruction choice of
// tile-select-mma (whose own diagnostics are in select-mma.mlir).
func.func @no_mma_choice() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op has no #tile.mma instruction choice; run tile-select-mma first}}
    tile.gemm %As, %Bs, %C : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}
