// gfx942: tile-select-mma chooses the mfma shape (32x32 where every wave
// tile holds whole 32x32 atoms, else 16x16) and the wave partition, and
// tile-infer-layouts gives the accumulator its mfma layout. The lane maps
// are checked by Inputs/check_mfma_layouts.py against AMD's MFMA register
// layout, written there from the lane's side (lane l and VGPR v of an
// atom hold one element), for every element of every tile below.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/choices.mlir -split-input-file --tile-select-mma=target=gfx942 | FileCheck %s
// RUN: tile-opt %t/choices.mlir -split-input-file --tile-select-mma=target=gfx942 --tile-infer-layouts=target=gfx942 | python3 %S/Inputs/check_mfma_layouts.py 7 | FileCheck %s --check-prefix=LANES
// The choice is stable: running the pass again changes nothing.
// RUN: tile-opt %t/choices.mlir -split-input-file --tile-select-mma=target=gfx942 --tile-select-mma=target=gfx942 | FileCheck %s
// RUN: tile-opt %t/invalid.mlir -split-input-file --tile-select-mma=target=gfx942 -verify-diagnostics
// RUN: tile-opt %t/attrs.mlir -split-input-file -verify-diagnostics

// CHECK-LABEL: func.func @square_f16
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mfma, m32n32k8, warps = [2, 2]>}
// CHECK-LABEL: func.func @one_wave_bf16
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mfma, m16n16k16, warps = [1, 1]>}
// CHECK-LABEL: func.func @rows_of_16
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mfma, m16n16k16, warps = [1, 4]>}
// CHECK-LABEL: func.func @full_row_falls_back
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mfma, m32n32k8, warps = [1, 2]>, policy = #tile.policy<full_row>}
// CHECK-LABEL: func.func @int8
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mfma, m32n32k16, warps = [2, 2]>}
// CHECK-LABEL: func.func @fp8_k32
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mfma, m16n16k32, warps = [1, 1]>}
// CHECK-LABEL: func.func @f32
// CHECK: tile.gemm {{.*}} {mma = #tile.mma<mfma, m32n32k2, warps = [1, 1]>}
// LANES: checked 7 accumulator layouts

//--- choices.mlir

func.func @square_f16() {
  tile.kernel (%bx) in (1) threads(256) {
    %A = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @one_wave_bf16() {
  tile.kernel (%bx) in (1) threads(64) {
    %A = tile.alloc_shared : memref<16x32xbf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<32x48xbf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x48xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C : memref<16x32xbf16, #tile.scope<shared>>, memref<32x48xbf16, #tile.scope<shared>>, memref<16x48xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// 16 rows: no 32x32 atom fits, the four waves split N.
func.func @rows_of_16() {
  tile.kernel (%bx) in (1) threads(256) {
    %A = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x128xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C : memref<16x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<16x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// full_row cannot stack two waves of 32 rows on 32 rows: the balanced split.
func.func @full_row_falls_back() {
  tile.kernel (%bx) in (1) threads(128) {
    %A = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<32x64xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C {policy = #tile.policy<full_row>} : memref<32x16xf16, #tile.scope<shared>>, memref<16x64xf16, #tile.scope<shared>>, memref<32x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @int8() {
  tile.kernel (%bx) in (1) threads(256) {
    %A = tile.alloc_shared : memref<64x64xi8, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<64x64xi8, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x64xi32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C : memref<64x64xi8, #tile.scope<shared>>, memref<64x64xi8, #tile.scope<shared>>, memref<64x64xi32, #tile.scope<fragment>>
  }
  return
}

// -----

// K = 32 of fp8: the 16x16x32 instruction (32x32x16 needs 32 rows).
func.func @fp8_k32() {
  tile.kernel (%bx) in (1) threads(64) {
    %A = tile.alloc_shared : memref<16x32xf8E4M3FNUZ, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<32x16xf8E4M3FNUZ, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C : memref<16x32xf8E4M3FNUZ, #tile.scope<shared>>, memref<32x16xf8E4M3FNUZ, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// f32 inputs: one element a lane, m32n32k2 (v_mfma_f32_32x32x2f32).
func.func @f32() {
  tile.kernel (%bx) in (1) threads(64) {
    %A = tile.alloc_shared : memref<32x8xf32, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<8x32xf32, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<32x32xf32, #tile.scope<fragment>>
    tile.gemm %A, %B, %C : memref<32x8xf32, #tile.scope<shared>>, memref<8x32xf32, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}

//--- invalid.mlir

func.func @f16_accumulator() {
  tile.kernel (%bx) in (1) threads(64) {
    %A = tile.alloc_shared : memref<32x8xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<8x32xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<32x32xf16, #tile.scope<fragment>>
    // expected-error @below {{cannot run as mfma on gfx942: it takes f16, bf16 or f32 inputs with an f32 accumulator, i8 with i32 or fp8 (e4m3fnuz / e5m2fnuz) with f32 (got 'f16' -> 'f16')}}
    tile.gemm %A, %B, %C : memref<32x8xf16, #tile.scope<shared>>, memref<8x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @half_a_wave() {
  tile.kernel (%bx) in (1) threads(32) {
    %A = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<16x32xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<32x32xf32, #tile.scope<fragment>>
    // expected-error @below {{must split over the 0 64-lane wavefronts of 32 threads}}
    tile.gemm %A, %B, %C : memref<32x16xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}

//--- attrs.mlir

func.func @bad_shape() {
  tile.kernel (%bx) in (1) threads(64) {
    %A = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<16x32xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<32x32xf32, #tile.scope<fragment>>
    // expected-error @below {{mfma has the shapes m32n32k8, m16n16k16 (16-bit inputs), m32n32k16 and m16n16k32 (8-bit), m32n32k2 and m16n16k4 (f32), without repeats, got m32n16k8}}
    tile.gemm %A, %B, %C {mma = #tile.mma<mfma, m32n16k8, warps = [1, 1]>} : memref<32x16xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @k_of_8_bit_shape() {
  tile.kernel (%bx) in (1) threads(64) {
    %A = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<16x32xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<32x32xf32, #tile.scope<fragment>>
    // expected-error @below {{has #tile.mma<mfma, m32n32k16, warps = [1, 1]>, whose K must be 8 for 16-bit inputs and divide the gemm's K (16)}}
    tile.gemm %A, %B, %C {mma = #tile.mma<mfma, m32n32k16, warps = [1, 1]>} : memref<32x16xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @waves_and_threads() {
  tile.kernel (%bx) in (1) threads(128) {
    %A = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    %B = tile.alloc_shared : memref<16x32xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<32x32xf32, #tile.scope<fragment>>
    // expected-error @below {{a partition over 1 64-lane wavefronts, but the kernel has 128 threads}}
    tile.gemm %A, %B, %C {mma = #tile.mma<mfma, m32n32k8, warps = [1, 1]>} : memref<32x16xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}
