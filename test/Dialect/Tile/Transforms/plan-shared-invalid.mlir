// tile-plan-shared reports a kernel whose shared buffers do not fit the
// target even where those with disjoint lifetimes share bytes: at the
// kernel, with a note at each buffer giving its type and size (and the
// bytes of its pipeline's other stages).
//
// RUN: tile-opt %s -split-input-file --tile-plan-shared=target=sm_90a -verify-diagnostics
// RUN: not tile-opt %s --tile-plan-shared=target=sm_70 -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown target 'sm_70'; expected one of cpu, sm_80, sm_90a, gfx942

// Both tiles are live during the copy between them.
func.func @together(%out: memref<128x512xf16>, %h: f16) {
  // expected-error @below {{'tile.kernel' op needs at least 262144 bytes of shared memory for its 2 shared buffers, with those whose lifetimes do not overlap sharing bytes; sm_90a allows 232448 per block (use smaller tiles or fewer stages)}}
  tile.kernel (%bx) in (1) threads(128) {
    // expected-note @below {{memref<128x512xf16, #tile.scope<shared>>: 131072 bytes}}
    %a = tile.alloc_shared : memref<128x512xf16, #tile.scope<shared>>
    // expected-note @below {{memref<128x512xf16, #tile.scope<shared>>: 131072 bytes}}
    %b = tile.alloc_shared : memref<128x512xf16, #tile.scope<shared>>
    tile.fill %a, %h : memref<128x512xf16, #tile.scope<shared>>, f16
    tile.copy %a to %b : memref<128x512xf16, #tile.scope<shared>> to memref<128x512xf16, #tile.scope<shared>>
    tile.copy %b to %out : memref<128x512xf16, #tile.scope<shared>> to memref<128x512xf16>
  }
  return
}

// -----

// Three stages of a 64 KiB tile and a 64 KiB tile read in the loop.
func.func @stages(%A: memref<4096x512xf16>, %out: memref<64x512xf16>, %h: f16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @below {{'tile.kernel' op needs at least 262144 bytes of shared memory}}
  tile.kernel (%bx) in (1) threads(128) {
    // expected-note @below {{memref<64x512xf16, #tile.scope<shared>>: 65536 bytes}}
    %q = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    // expected-note @below {{memref<64x512xf16, #tile.scope<shared>>: 65536 bytes (and 131072 for its pipeline's other stages)}}
    %kv = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    tile.fill %q, %h : memref<64x512xf16, #tile.scope<shared>>, f16
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%k0, 0] [64, 512] to %kv : memref<4096x512xf16> to memref<64x512xf16, #tile.scope<shared>>
      tile.copy %q to %out : memref<64x512xf16, #tile.scope<shared>> to memref<64x512xf16>
      tile.copy %kv to %out : memref<64x512xf16, #tile.scope<shared>> to memref<64x512xf16>
    }
  }
  return
}

