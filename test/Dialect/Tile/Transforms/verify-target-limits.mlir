// RUN: tile-opt %s --tile-verify-target=target=sm_80 -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tile-opt %s --tile-verify-target=target=sm_90a -split-input-file -verify-diagnostics | FileCheck %s

// Size limits of NVIDIA targets that tile-verify-target checks before any
// lowering grows with the sizes (the fragment walks unroll over a thread's
// registers): each fragment's share of a thread's 255 32-bit registers,
// of which it may spill up to 1020 words to local memory, the 512 KiB of local buffers a thread may hold, grid extents.

// 128x128 f32 on 128 threads is 128 registers a thread; 128x256 bf16 on
// 128 threads, 128 too; 255 registers exactly fit; 16x2048 f32 (a row-sum
// tile) is 256, one spilled; 1020 words is the most a fragment may take.
// CHECK-LABEL: func.func @registers_fit
func.func @registers_fit() {
  tile.kernel (%bx) in (1) threads(128) {
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %d = tile.alloc_fragment : memref<128x256xbf16, #tile.scope<fragment>>
    %e = tile.alloc_fragment : memref<255x128xf32, #tile.scope<fragment>>
    %f = tile.alloc_fragment : memref<16x2048xf32, #tile.scope<fragment>>
    %g = tile.alloc_fragment : memref<1020x128xf32, #tile.scope<fragment>>
    tile.clear %c : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %d : memref<128x256xbf16, #tile.scope<fragment>>
    tile.clear %e : memref<255x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @registers_over() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_fragment' op needs 1021 32-bit registers in each of the block's 128 threads; sm_}}
    %c = tile.alloc_fragment : memref<1021x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A 65536x65536 bf16 fragment: 2^31 words.
func.func @huge_fragment() {
  tile.kernel (%bx) in (1) threads(256) {
    // expected-error @below {{'tile.alloc_fragment' op needs 8388608 32-bit registers in each of the block's 256 threads}}
    %c = tile.alloc_fragment : memref<65536x65536xbf16, #tile.scope<fragment>>
  }
  return
}

// -----

// Shapes whose size does not fit in 64 bits saturate.
func.func @absurd_fragment() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_fragment' op needs more than 72057594037927936 32-bit registers in each of the block's 32 threads}}
    %c = tile.alloc_fragment : memref<9223372036854775807x4xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @local_fits
func.func @local_fits() {
  tile.kernel (%bx) in (1) threads(32) {
    %l = tile.alloc_local : memref<131072xf32, #tile.scope<local>>
    tile.clear %l : memref<131072xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @local_over() {
  // expected-error @below {{'tile.kernel' op allocates 524296 bytes of local buffers, which every thread holds a copy of; sm_}}
  tile.kernel (%bx) in (1) threads(32) {
    %l = tile.alloc_local : memref<131072xf32, #tile.scope<local>>
    %m = tile.alloc_local : memref<2xf32, #tile.scope<local>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @grid_fits
func.func @grid_fits() {
  tile.kernel (%bx, %by, %bz) in (2147483647, 65535, 65535) threads(32) {
  }
  return
}

// -----

func.func @grid_over_x() {
  // expected-error @below {{'tile.kernel' op has 2147483648 blocks in grid dimension 0; sm_}}
  tile.kernel (%bx) in (2147483648) threads(32) {
  }
  return
}

// -----

func.func @grid_over_y() {
  // expected-error @below {{'tile.kernel' op has 65536 blocks in grid dimension 1; sm_}}
  tile.kernel (%bx, %by) in (1, 65536) threads(32) {
  }
  return
}
