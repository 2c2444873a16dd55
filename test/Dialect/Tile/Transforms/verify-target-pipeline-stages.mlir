// RUN: tile-opt %s --tile-verify-target=target=sm_80 -split-input-file -verify-diagnostics | FileCheck %s

// On NVIDIA targets a pipelined global -> shared copy keeps num_stages
// copies of its buffer (tile-software-pipeline's stages), in place of the
// buffer; tile-verify-target counts them against the shared memory of a
// block (sm_80: 163 KiB, 166912 bytes). 16 KiB x 11 stages = 176 KiB.
func.func @pipeline_stages(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'tile.kernel' op allocates 180224 bytes of shared memory; sm_80 allows 166912 per block (use smaller tiles or fewer stages)}}
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 11 {
      tile.copy %A[0, %k] to %s : memref<?x?xf16> to memref<128x64xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

// The same loop with 10 stages fits: 16 KiB x 10 = 160 KiB.
// CHECK-LABEL: func.func @pipeline_stages_fit
func.func @pipeline_stages_fit(%A: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 10 {
      tile.copy %A[0, %k] to %s : memref<?x?xf16> to memref<128x64xf16, #tile.scope<shared>>
    }
  }
  return
}
