// gfx942's fp8 (e4m3fnuz and e5m2fnuz: AMD's fp8, without negative zero
// and infinities) on MFMA: 8 values a lane, 32x32x16 and 16x16x32 atoms,
// an f32 accumulator.
// RUN: tile-opt %s --tile-to-rocdl='chip=gfx942 format=isa' | %python %S/../NVVM/extract_ptx.py - %t.e4m3.s --kernel e4m3_kernel
// RUN: FileCheck %s --check-prefix=E4M3 < %t.e4m3.s
// RUN: tile-opt %s --tile-to-rocdl='chip=gfx942 format=isa' | %python %S/../NVVM/extract_ptx.py - %t.e5m2.s --kernel e5m2_kernel
// RUN: FileCheck %s --check-prefix=E5M2 < %t.e5m2.s
// E4M3: v_mfma_f32_32x32x16_fp8_fp8
// E4M3: .private_segment_fixed_size: 0
// E5M2: v_mfma_f32_16x16x32_bf8_bf8
// E5M2: .private_segment_fixed_size: 0

func.func @e4m3(%A: memref<64x32xf8E4M3FNUZ>, %B: memref<32x64xf8E4M3FNUZ>, %C: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(256) {
    %As = tile.alloc_shared : memref<64x32xf8E4M3FNUZ, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x64xf8E4M3FNUZ, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %A[0, 0] to %As : memref<64x32xf8E4M3FNUZ> to memref<64x32xf8E4M3FNUZ, #tile.scope<shared>>
    tile.copy %B[0, 0] to %Bs : memref<32x64xf8E4M3FNUZ> to memref<32x64xf8E4M3FNUZ, #tile.scope<shared>>
    tile.gemm %As, %Bs, %Cf {clear_accum} : memref<64x32xf8E4M3FNUZ, #tile.scope<shared>>, memref<32x64xf8E4M3FNUZ, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %Cf to %C[0, 0] : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf32>
  }
  return
}

func.func @e5m2(%A: memref<16x64xf8E5M2FNUZ>, %B: memref<64x16xf8E5M2FNUZ>, %C: memref<16x16xf32>) {
  tile.kernel (%bx) in (1) threads(64) {
    %As = tile.alloc_shared : memref<16x64xf8E5M2FNUZ, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x16xf8E5M2FNUZ, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    tile.copy %A[0, 0] to %As : memref<16x64xf8E5M2FNUZ> to memref<16x64xf8E5M2FNUZ, #tile.scope<shared>>
    tile.copy %B[0, 0] to %Bs : memref<64x16xf8E5M2FNUZ> to memref<64x16xf8E5M2FNUZ, #tile.scope<shared>>
    tile.gemm %As, %Bs, %Cf {clear_accum} : memref<16x64xf8E5M2FNUZ, #tile.scope<shared>>, memref<64x16xf8E5M2FNUZ, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    tile.copy %Cf to %C[0, 0] : memref<16x16xf32, #tile.scope<fragment>> to memref<16x16xf32>
  }
  return
}
