// tile-select-mma: the #tile.mma (instruction, its shape, warp partition)
// each gemm gets, which tile-infer-layouts and tile-lower-ops then read.
// Every diagnostic of the pass is checked in invalid.mlir.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/choices.mlir -split-input-file --tile-select-mma=target=sm_80 | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: tile-opt %t/choices.mlir -split-input-file --tile-select-mma=target=sm_90a | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: tile-opt %t/choices.mlir -split-input-file --tile-select-mma=target=cpu | FileCheck %s --check-prefix=CPU
// The choice is stable: running the pass again changes nothing.
// RUN: tile-opt %t/choices.mlir -split-input-file --tile-select-mma=target=sm_90a --tile-select-mma=target=sm_90a | FileCheck %s --check-prefixes=CHECK,SM90
// Flash attention: both gemms of the TMA loop run as wgmma, P @ V from
// registers.
// RUN: tile-opt %S/../../../Target/NVVM/Inputs/flash-attention.mlir --tile-select-mma=target=sm_90a | FileCheck %s --check-prefix=FA90
// RUN: tile-opt %S/../../../Target/NVVM/Inputs/flash-attention.mlir --tile-select-mma=target=sm_80 | FileCheck %s --check-prefix=FA80
// DeepSeek-MLA-style decode (64 rows on two warpgroups): every gemm of the
// TMA loop runs as wgmma with the warpgroups along N, P from the shared
// tile the loop writes.
// RUN: tile-opt %S/../../../Target/NVVM/Inputs/mha-fwd-bshd-128.mlir --tile-select-mma=target=sm_90a | FileCheck %s --check-prefix=MHA128
// RUN: tile-opt %S/../../../Target/NVVM/Inputs/mla-decode.mlir --tile-select-mma=target=sm_90a | FileCheck %s --check-prefix=MLA90
// RUN: tile-opt %t/invalid.mlir -split-input-file --tile-select-mma=target=sm_80 -verify-diagnostics
// RUN: tile-opt %t/invalid.mlir -split-input-file --tile-select-mma=target=sm_90a -verify-diagnostics
// RUN: tile-opt %t/fp8.mlir -split-input-file --tile-select-mma=target=sm_90a -verify-diagnostics
// RUN: tile-opt %t/fp8-panels.mlir --tile-select-mma=target=sm_90a | FileCheck %s --check-prefix=FP8
// RUN: tile-opt %t/unknown-target.mlir --tile-select-mma=target=sm_70 -verify-diagnostics
// A failing choice fails the pass (and tile-opt) without -verify-diagnostics.
// RUN: not tile-opt %t/invalid.mlir -split-input-file --tile-select-mma=target=sm_80 -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: error: 'tile.gemm' op cannot split its 16x8x16 tile

// FA90-LABEL: func.func @main
// FA90: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n64k16, warps = [4, 1]>, policy = #tile.policy<full_row>, transpose_b}
// FA90: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n64k16, warps = [4, 1]>, policy = #tile.policy<full_row>}
// One warpgroup for 128 rows with FullRow gemms (example_mha_fwd_bshd.py at
// block_M = block_N = 128, 128 threads): both gemms are two m64 wgmmas a
// warpgroup, 64 rows apart; the second takes P from registers (its layout
// is the first one's accumulator, two 64-row strips a warp).
// MHA128-LABEL: func.func @main
// MHA128: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n128k16, warps = [4, 1], repeats = 2>, policy = #tile.policy<full_row>, transpose_b}
// MHA128: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n64k16, warps = [4, 1], repeats = 2>, policy = #tile.policy<full_row>}
// MLA90-LABEL: func.func @mla
// MLA90: tile.gemm {{.*}} {clear_accum, mma = #tile.mma<wgmma, m64n32k16, warps = [4, 2]>, policy = #tile.policy<full_col>, transpose_b}
// MLA90: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n32k16, warps = [4, 2]>, policy = #tile.policy<full_col>, transpose_b}
// MLA90: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n256k16, warps = [4, 2]>, policy = #tile.policy<full_col>}
// FA80-LABEL: func.func @main
// FA80: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [4, 1]>, policy = #tile.policy<full_row>, transpose_b}
// FA80: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [4, 1]>, policy = #tile.policy<full_row>}

//--- choices.mlir

// Outside a TMA pipeline every gemm runs as mma.sync: the policy's warp
// partition (square: the most balanced warp tile), m16n8kK with K 16 for
// 16-bit inputs, 8 for f32 (tf32) and 32 for i8; sparse gemms too.
// CHECK-LABEL: func.func @mma_sync_shapes
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>}
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [4, 1]>, policy = #tile.policy<full_row>}
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 4]>, policy = #tile.policy<full_col>}
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k8, warps = [2, 2]>}
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k32, warps = [2, 2]>}
// CHECK: tile.gemm_sp {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>}
// CPU-LABEL: func.func @mma_sync_shapes
// CPU-NOT: mma =
func.func @mma_sync_shapes() {
  tile.kernel (%bx) in (1) threads(128) {
    %A = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %A32 = tile.alloc_shared : memref<128x32xf32, #tile.scope<shared>>
    %B32 = tile.alloc_shared : memref<32x128xf32, #tile.scope<shared>>
    %A8 = tile.alloc_shared : memref<128x32xi8, #tile.scope<shared>>
    %B8 = tile.alloc_shared : memref<32x128xi8, #tile.scope<shared>>
    %C8 = tile.alloc_fragment : memref<128x128xi32, #tile.scope<fragment>>
    %As = tile.alloc_shared : memref<128x16xf16, #tile.scope<shared>>
    %E = tile.alloc_shared : memref<128x2xi16, #tile.scope<shared>>
    tile.gemm %A, %B, %C : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C {policy = #tile.policy<full_row>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C {policy = #tile.policy<full_col>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %A32, %B32, %C : memref<128x32xf32, #tile.scope<shared>>, memref<32x128xf32, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %A8, %B8, %C8 : memref<128x32xi8, #tile.scope<shared>>, memref<32x128xi8, #tile.scope<shared>>, memref<128x128xi32, #tile.scope<fragment>>
    tile.gemm_sp %As, %E, %B, %C : memref<128x16xf16, #tile.scope<shared>>, memref<128x2xi16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// One warpgroup per 64 rows: sm_90a gives the gemm the wgmma partition
// (warp w holds rows 16w .. 16w + 15), but with no TMA pipeline to load
// its operands it runs as mma.sync on that partition. sm_80 keeps square's
// 1x4 warps of 64x64.
// CHECK-LABEL: func.func @wgmma_partition_without_tma
// SM80: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 4]>}
// SM90: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [4, 1]>}
func.func @wgmma_partition_without_tma() {
  tile.kernel (%bx) in (1) threads(128) {
    %A = tile.alloc_shared : memref<64x16xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<16x256xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x256xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C : memref<64x16xf16, #tile.scope<shared>>, memref<16x256xf16, #tile.scope<shared>>, memref<64x256xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A pipelined loop whose copies TMA can load (whole tiles of 128-byte rows
// at offsets computed from the iteration): sm_90a runs its gemm as wgmma
// m64n256k16, two warpgroups of 64 rows.
// CHECK-LABEL: func.func @tma_pipeline
// SM80: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [2, 4]>}
// SM90: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n256k16, warps = [8, 1]>}
func.func @tma_pipeline(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%bx, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %by] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %C : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
  }
  return
}

// -----

// Two 64-row blocks a warpgroup (256 rows on two warpgroups, N <= 128,
// square policy, operands of 128-byte rows): wgmma with repeats = 2.
// CHECK-LABEL: func.func @two_blocks_a_warpgroup
// SM90: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n128k16, warps = [8, 1], repeats = 2>}
func.func @two_blocks_a_warpgroup(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (8, 4) threads(256) {
    %As = tile.alloc_shared : memref<256x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<256x128xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%by, %k0] to %As : memref<1024x1024xf16> to memref<256x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %bx] to %Bs : memref<1024x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %C : memref<256x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<256x128xf32, #tile.scope<fragment>>
    }
  }
  return
}

// -----

// One warpgroup for 128 rows: FullRow (all 4 warps along M) is the wgmma
// partition of two 64-row blocks too; FullCol asks for warps along N and
// keeps mma.sync (1 x 4 warps). 64-byte rows of A (K = 32 f16:
// TileLang's example_gemm.py, 128x128x32 on 128 threads) are 64-byte
// swizzled panels, which TMA loads and wgmma reads as well.
// CHECK-LABEL: func.func @one_warpgroup_128_rows
// SM80-COUNT-2: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [4, 1]>, policy = #tile.policy<full_row>}
// SM80: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 4]>, policy = #tile.policy<full_col>}
// SM90-COUNT-2: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n128k16, warps = [4, 1], repeats = 2>, policy = #tile.policy<full_row>}
// SM90: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 4]>, policy = #tile.policy<full_col>}
func.func @one_warpgroup_128_rows(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %A2 = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %B2 = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %C2 = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %C3 = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %A3 = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %B3 = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%by, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %bx] to %Bs : memref<1024x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %C {policy = #tile.policy<full_row>} : memref<128x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%by, %k0] to %A2 : memref<1024x1024xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %bx] to %B2 : memref<1024x1024xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %A2, %B2, %C2 {policy = #tile.policy<full_row>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%by, %k0] to %A3 : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %bx] to %B3 : memref<1024x1024xf16> to memref<64x128xf16, #tile.scope<shared>>
      tile.gemm %A3, %B3, %C3 {policy = #tile.policy<full_col>} : memref<128x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
  }
  return
}

// -----

// Operand rows of 64 and 32 bytes are whole swizzled panels (getPanelBytes:
// the widest of 128, 64, 32 bytes a row fills): TMA loads them and the
// gemms run as wgmma, two 64-row blocks a warpgroup (the default policy).
// TileLang's example_gemm.py (A 128x32 f16: 64 bytes; B 32x128: 256) and
// K = 16 (32-byte rows of A); fp8 in fp8-panels.mlir. Rows of 48 bytes (B 32x24 f16, read
// MN-major) are no whole panel: no TMA, mma.sync on the policy's warps.
// CHECK-LABEL: func.func @narrow_panels
// SM90: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n128k16, warps = [4, 1], repeats = 2>}
// SM90: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n128k16, warps = [4, 1], repeats = 2>}
// SM90: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [4, 1]>}
func.func @narrow_panels(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %A64 = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %B64 = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %C64 = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%by, %k0] to %A64 : memref<1024x1024xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %bx] to %B64 : memref<1024x1024xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %A64, %B64, %C64 : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    %A32 = tile.alloc_shared : memref<128x16xf16, #tile.scope<shared>>
    %B32 = tile.alloc_shared : memref<16x128xf16, #tile.scope<shared>>
    %C32 = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 4 {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%by, %k0] to %A32 : memref<1024x1024xf16> to memref<128x16xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %bx] to %B32 : memref<1024x1024xf16> to memref<16x128xf16, #tile.scope<shared>>
      tile.gemm %A32, %B32, %C32 : memref<128x16xf16, #tile.scope<shared>>, memref<16x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    %A48 = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %B48 = tile.alloc_shared : memref<32x24xf16, #tile.scope<shared>>
    %C48 = tile.alloc_fragment : memref<128x24xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%by, %k0] to %A48 : memref<1024x1024xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %bx] to %B48 : memref<1024x1024xf16> to memref<32x24xf16, #tile.scope<shared>>
      tile.gemm %A48, %B48, %C48 : memref<128x32xf16, #tile.scope<shared>>, memref<32x24xf16, #tile.scope<shared>>, memref<128x24xf32, #tile.scope<fragment>>
    }
  }
  return
}

// -----

// A copy of the loop TMA must not perform (disable_tma): the loop keeps
// cp.async, so its gemm runs as mma.sync, on the wgmma partition.
// CHECK-LABEL: func.func @tma_disabled
// SM90: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [8, 1]>}
func.func @tma_disabled(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%bx, %k0] to %As {tile.disable_tma} : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %by] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %C : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
  }
  return
}

// -----

// A TMA pipeline of 64-row tiles on two warpgroups: wgmma with the
// warpgroups along N, each an m64n128 on its half of the columns.
// CHECK-LABEL: func.func @tma_warpgroups_along_n
// SM80: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 8]>}
// SM90: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n128k16, warps = [4, 2]>}
func.func @tma_warpgroups_along_n(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (4, 16) threads(256) {
    %As = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x256xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%by, %k0] to %As : memref<1024x1024xf16> to memref<64x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %bx] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %C : memref<64x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<64x256xf32, #tile.scope<fragment>>
    }
  }
  return
}

// -----

// More warps than 16-row strips: sm_90a's wgmma partition splits N over the
// warpgroups (warps = [4, 2]: two m64n64), but with no TMA pipeline to
// load its operands the gemm runs as mma.sync on its policy's partition,
// as on sm_80 (full_col: 1x8 warps of 64x16).
// CHECK-LABEL: func.func @warpgroups_along_n_without_tma
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mma_sync, m16n8k16, warps = [1, 8]>, policy = #tile.policy<full_col>}
func.func @warpgroups_along_n_without_tma() {
  tile.kernel (%bx) in (1) threads(256) {
    %A = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C {policy = #tile.policy<full_col>} : memref<64x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>
  }
  return
}

//--- invalid.mlir

// 16x8 is one atom: it cannot be split over 4 warps.
func.func @too_small_for_the_warps() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x8xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op cannot split its 16x8x16 tile over 4 warps in 16x8x16 mma.sync atoms (M must be a multiple of 16 and N of 8 per warp, K of 16)}}
    tile.gemm %As, %Bs, %C : memref<16x16xf16, #tile.scope<shared>>, memref<16x8xf16, #tile.scope<shared>>, memref<16x8xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// M = 24 is no multiple of 16, whatever the policy.
func.func @m_not_multiple_of_16() {
  tile.kernel (%bx) in (1) threads(64) {
    %As = tile.alloc_shared : memref<24x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<24x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op cannot split its 24x64x16 tile over 2 warps in 16x8x16 mma.sync atoms}}
    tile.gemm %As, %Bs, %C {policy = #tile.policy<full_col>} : memref<24x16xf16, #tile.scope<shared>>, memref<16x64xf16, #tile.scope<shared>>, memref<24x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// K = 8 is no multiple of mma.sync's 16.
func.func @k_not_multiple_of_16() {
  tile.kernel (%bx) in (1) threads(32) {
    %As = tile.alloc_shared : memref<16x8xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<8x8xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op cannot split its 16x8x8 tile over 1 warps in 16x8x16 mma.sync atoms}}
    tile.gemm %As, %Bs, %C : memref<16x8xf16, #tile.scope<shared>>, memref<8x8xf16, #tile.scope<shared>>, memref<16x8xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// f32 gemms run as tf32 m16n8k8 atoms: K must be a multiple of 8.
func.func @tf32_short_k() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x4xf32, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<4x64xf32, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op cannot split its 64x64x4 tile over 4 warps in 16x8x8 mma.sync atoms (M must be a multiple of 16 and N of 8 per warp, K of 8)}}
    tile.gemm %As, %Bs, %C : memref<64x4xf32, #tile.scope<shared>>, memref<4x64xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @f16_accumulator() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    // expected-error-re @below {{'tile.gemm' op is lowered to mma.sync on {{sm_80|sm_90a}}, which takes f16 or bf16 inputs with an f32 accumulator, i8 inputs with an i32 accumulator or f32 inputs (as tf32), in this version}}
    tile.gemm %As, %Bs, %C : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<fragment>>
  }
  return
}

// -----

// i8 gemms run as m16n8k32 atoms: K must be a multiple of 32.
func.func @i8_short_k() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x16xi8, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x64xi8, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x64xi32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op cannot split its 64x64x16 tile over 4 warps in 16x8x32 mma.sync atoms (M must be a multiple of 16 and N of 8 per warp, K of 32)}}
    tile.gemm %As, %Bs, %C : memref<64x16xi8, #tile.scope<shared>>, memref<16x64xi8, #tile.scope<shared>>, memref<64x64xi32, #tile.scope<fragment>>
  }
  return
}

// -----

// Sparse gemms follow the element-type rule of tile.gemm on their
// expanded A.
func.func @gemm_sp_i8() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x16xi8, #tile.scope<shared>>
    %Es = tile.alloc_shared : memref<128x2xi16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xi8, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<128x128xi32, #tile.scope<fragment>>
    // expected-error-re @below {{'tile.gemm_sp' op is lowered to mma.sync on {{sm_80|sm_90a}}, which takes f16 or bf16 inputs with an f32 accumulator (sparse gemms) in this version}}
    tile.gemm_sp %As, %Es, %Bs, %C : memref<128x16xi8, #tile.scope<shared>>, memref<128x2xi16, #tile.scope<shared>>, memref<32x128xi8, #tile.scope<shared>>, memref<128x128xi32, #tile.scope<fragment>>
  }
  return
}

//--- fp8.mlir

// fp8 runs only as wgmma on TMA-loaded operands: a tile that no pipeline
// loads is reported at the gemm.
func.func @fp8_without_tma(%A: memref<64x64xf8E4M3FN>, %B: memref<64x64xf8E4M3FN>) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %A to %As : memref<64x64xf8E4M3FN> to memref<64x64xf8E4M3FN, #tile.scope<shared>>
    tile.copy %B to %Bs : memref<64x64xf8E4M3FN> to memref<64x64xf8E4M3FN, #tile.scope<shared>>
    // expected-error @below {{'tile.gemm' op has fp8 inputs, which run only as wgmma on operands that a pipelined loop loads with TMA (T.Pipelined copies of whole shared tiles, A not transposed and B transposed)}}
    tile.gemm %As, %Bs, %Cf {transpose_b, clear_accum} : memref<64x64xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Six warps for 64 rows (not whole warpgroups): no wgmma partition.
func.func @fp8_no_partition() {
  tile.kernel (%bx) in (1) threads(192) {
    %As = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op has fp8 inputs, which run as wgmma on sm_90a only: the block needs one warpgroup (128 threads) per 64 rows of the 64x64 tile (or a multiple of that: the warpgroups split N), N a multiple of 8 up to 256 a warpgroup, K a multiple of 32 and an f32 accumulator}}
    tile.gemm %As, %Bs, %Cf {transpose_b} : memref<64x64xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

//--- unknown-target.mlir
// expected-error @below {{unknown target 'sm_70'; expected one of cpu, sm_80, sm_90a, gfx942}}
module {
}

//--- fp8-panels.mlir

// TileLang's fp8 example (examples/gemm_fp8: 128x128x64 e4m3 on 128
// threads, B transposed): both operands have 64-byte rows, 64-byte
// swizzled panels that TMA loads: wgmma, two 64-row blocks a warpgroup.
// FP8-LABEL: func.func @fp8_64_byte_rows
// FP8: tile.gemm {{.*}} {mma = #tile.mma<wgmma, m64n128k32, warps = [4, 1], repeats = 2>, transpose_b}
func.func @fp8_64_byte_rows(%A: memref<1024x1024xf8E4M3FN>, %B: memref<1024x1024xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf8E4M3FN, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<128x64xf8E4M3FN, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%by, %k0] to %As : memref<1024x1024xf8E4M3FN> to memref<128x64xf8E4M3FN, #tile.scope<shared>>
      tile.copy %B[%bx, %k0] to %Bs : memref<1024x1024xf8E4M3FN> to memref<128x64xf8E4M3FN, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x64xf8E4M3FN, #tile.scope<shared>>, memref<128x64xf8E4M3FN, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
  }
  return
}
