// The reduction of an mfma accumulator along its rows (flash attention's
// row max and row sum) gets the accumulator's row layout on gfx942: each
// row held by exactly the lanes that hold elements of it, so that the
// reduction combines registers and lanes (no LDS) and the loops that mix
// the accumulator with its row vector read their own registers. The lane
// sets are checked by Inputs/check_mfma_row_layouts.py against AMD's MFMA
// register layout, for every row.
// RUN: tile-opt %s --tile-select-mma=target=gfx942 --tile-infer-layouts=target=gfx942 | %python %S/Inputs/check_mfma_row_layouts.py 3 | FileCheck %s
// CHECK: checked 3 row layouts

func.func @m32_2x2(%A: memref<64x16xf16>) {
  tile.kernel (%bx) in (1) threads(256) {
    %As = tile.alloc_shared : memref<64x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %R = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C : memref<64x16xf16, #tile.scope<shared>>, memref<16x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.reduce max %C into %R dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
  }
  return
}

func.func @m16_1x4(%A: memref<16x16xf16>) {
  tile.kernel (%bx) in (1) threads(256) {
    %As = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x64xf32, #tile.scope<fragment>>
    %R = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C : memref<16x16xf16, #tile.scope<shared>>, memref<16x64xf16, #tile.scope<shared>>, memref<16x64xf32, #tile.scope<fragment>>
    tile.reduce sum %C into %R dim = 1 : memref<16x64xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  }
  return
}

func.func @m32_4x1_full_row(%A: memref<128x16xf16>) {
  tile.kernel (%bx) in (1) threads(256) {
    %As = tile.alloc_shared : memref<128x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<128x64xf32, #tile.scope<fragment>>
    %R = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C {policy = #tile.policy<full_row>} : memref<128x16xf16, #tile.scope<shared>>, memref<16x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    tile.reduce max %C into %R dim = 1 : memref<128x64xf32, #tile.scope<fragment>> into memref<128xf32, #tile.scope<fragment>>
  }
  return
}
