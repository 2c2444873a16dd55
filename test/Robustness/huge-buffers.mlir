// Huge fragments and buffers are located errors before any lowering grows
// with their size: the NVIDIA lowering unrolls over each thread's
// registers (a 65536x65536 bf16 fragment took 12-26 s and aborted with
// "LLVM ERROR: out of memory"). tile-verify-target checks each fragment's
// share of the registers in every pipeline; tile-lower-ops checks it again
// in the inferred layout, for when it runs without tile-verify-target.
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" -split-input-file -verify-diagnostics -o /dev/null
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_80 format=isa" -split-input-file -verify-diagnostics -o /dev/null
// RUN: not tile-opt %s --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: not tile-opt %s --tile-to-cpu -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU

// LOWER: huge-buffers.mlir:[[#]]:10: error: 'tile.alloc_fragment' op needs 16777216 32-bit registers a thread in its layout; the target takes at most 1020
// LOWER: huge-buffers.mlir:[[#]]:10: error: 'tile.alloc_fragment' op needs 33554432 32-bit registers a thread in its layout; the target takes at most 1020
// CPU: huge-buffers.mlir:[[#]]:3: error: 'tile.kernel' op allocates 8589934592 bytes of shared, fragment and local buffers
// CPU: huge-buffers.mlir:[[#]]:3: error: 'tile.kernel' op allocates 8589934592 bytes of shared, fragment and local buffers
func.func @bf16_65536x65536(%A: memref<?x?xbf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_fragment' op needs 16777216 32-bit registers in each of the block's 128 threads; sm_}}
    %c = tile.alloc_fragment : memref<65536x65536xbf16, #tile.scope<fragment>>
    tile.clear %c : memref<65536x65536xbf16, #tile.scope<fragment>>
    tile.copy %c to %A[0, 0] : memref<65536x65536xbf16, #tile.scope<fragment>> to memref<?x?xbf16>
  }
  return
}

// -----

func.func @f32_2p31(%A: memref<?xf32>) {
  tile.kernel (%bx) in (1) threads(64) {
    // expected-error @below {{'tile.alloc_fragment' op needs 33554432 32-bit registers in each of the block's 64 threads}}
    %c = tile.alloc_fragment : memref<2147483648xf32, #tile.scope<fragment>>
    tile.clear %c : memref<2147483648xf32, #tile.scope<fragment>>
    tile.copy %c to %A[0] : memref<2147483648xf32, #tile.scope<fragment>> to memref<?xf32>
  }
  return
}
