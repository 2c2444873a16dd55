// RUN: tile-opt %s --tile-verify-target=target=gfx942 -split-input-file -verify-diagnostics | FileCheck %s

// How tile-verify-target counts shared memory, against gfx942's 64 KiB
// (65536 bytes) per block: every tile.alloc_shared of a kernel is counted
// once, at its element type's bit width, rounded up to whole bytes per
// buffer. Fragment and local buffers are registers and do not count. Valid
// cases are printed (and checked); invalid ones produce the diagnostics.

// index elements count as 64 bits.
// CHECK-LABEL: func.func @index_elements
// CHECK: tile.alloc_shared : memref<8192xindex, #tile.scope<shared>>
func.func @index_elements() {
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<8192xindex, #tile.scope<shared>>
    tile.clear %a : memref<8192xindex, #tile.scope<shared>>
  }
  return
}

// -----

func.func @index_elements_over() {
  // expected-error @below {{'tile.kernel' op allocates 65544 bytes of shared memory; gfx942 allows 65536 per block}}
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<8193xindex, #tile.scope<shared>>
  }
  return
}

// -----

// Sub-byte elements are packed: 131072 x i4 is 64 KiB.
// CHECK-LABEL: func.func @packed_i4
func.func @packed_i4() {
  tile.kernel (%bx) in (1) threads(64) {
    // CHECK: tile.alloc_shared : memref<131072xi4, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<131072xi4, #tile.scope<shared>>
    tile.clear %a : memref<131072xi4, #tile.scope<shared>>
  }
  return
}

// -----

// Each buffer is rounded up to whole bytes: 3 x i1 takes one byte.
// CHECK-LABEL: func.func @rounded_per_buffer
func.func @rounded_per_buffer() {
  tile.kernel (%bx) in (1) threads(64) {
    // CHECK: tile.alloc_shared : memref<65535xi8, #tile.scope<shared>>
    // CHECK: tile.alloc_shared : memref<3xi1, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<65535xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<3xi1, #tile.scope<shared>>
    tile.clear %a : memref<65535xi8, #tile.scope<shared>>
    tile.clear %b : memref<3xi1, #tile.scope<shared>>
  }
  return
}

// -----

func.func @rounded_per_buffer_over() {
  // Two 3 x i1 buffers are two bytes, not one.
  // expected-error @below {{'tile.kernel' op allocates 65537 bytes of shared memory; gfx942 allows 65536 per block}}
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<65535xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<3xi1, #tile.scope<shared>>
    %c = tile.alloc_shared : memref<3xi1, #tile.scope<shared>>
  }
  return
}

// -----

// fp8 is one byte per element; fragment and local buffers are free (a
// fragment share of 512 registers a thread is gfx942's limit).
// CHECK-LABEL: func.func @registers_do_not_count
func.func @registers_do_not_count() {
  tile.kernel (%bx) in (1) threads(64) {
    // CHECK: tile.alloc_shared : memref<256x256xf8E4M3FNUZ, #tile.scope<shared>>
    %a = tile.alloc_shared : memref<256x256xf8E4M3FNUZ, #tile.scope<shared>>
    %f = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    %l = tile.alloc_local : memref<512x512xf32, #tile.scope<local>>
    tile.clear %a : memref<256x256xf8E4M3FNUZ, #tile.scope<shared>>
    tile.clear %f : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %l : memref<512x512xf32, #tile.scope<local>>
  }
  return
}

// -----

// Each kernel has its own budget.
// CHECK-LABEL: func.func @budget_per_kernel
func.func @budget_per_kernel() {
  // CHECK: tile.kernel
  // CHECK: tile.kernel
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16384xf32, #tile.scope<shared>>
    tile.clear %a : memref<16384xf32, #tile.scope<shared>>
  }
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16384xf32, #tile.scope<shared>>
    tile.clear %a : memref<16384xf32, #tile.scope<shared>>
  }
  return
}

// -----

// An allocation inside a loop is counted once (not once per iteration or
// pipeline stage): multi-buffering is the pipeliner's business.
// CHECK-LABEL: func.func @allocation_in_loop
func.func @allocation_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (1) threads(64) {
    // CHECK: tile.pipelined
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 4 {
      %a = tile.alloc_shared : memref<16384xf32, #tile.scope<shared>>
      tile.clear %a : memref<16384xf32, #tile.scope<shared>>
    }
  }
  return
}

// -----

// Absurd sizes saturate instead of wrapping around below the limit.
func.func @huge_buffer() {
  // expected-error @below {{'tile.kernel' op allocates more than 2^63 bytes of shared memory; gfx942 allows 65536 per block}}
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<4611686018427387904x8xf32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<4611686018427387904x8xf32, #tile.scope<shared>>
  }
  return
}

// -----

// gfx942 runs a pipelined loop's iterations in order: a global -> shared
// copy in it keeps its one buffer, whatever num_stages says (NVIDIA
// targets count num_stages buffers: verify-target-pipeline-stages.mlir).
// CHECK-LABEL: func.func @pipeline_stages_in_order
func.func @pipeline_stages_in_order(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 5 {
      tile.copy %A[0, %k] to %s : memref<?x?xf16> to memref<128x64xf16, #tile.scope<shared>>
    }
  }
  return
}
