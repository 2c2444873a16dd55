// tile-place-buffers: the buffers it cannot place.
// RUN: tile-opt %s -split-input-file --tile-place-buffers=target=sm_80 -verify-diagnostics

func.func @unplanned_shared() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_shared' op has no shared-memory offset; run tile-plan-shared first}}
    %A = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    tile.clear %A : memref<64x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @fragment_without_layout() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_fragment' op has no register layout with an inverse; run tile-infer-layouts first}}
    %F = tile.alloc_fragment : memref<4x32xf32, #tile.scope<fragment>>
    tile.clear %F : memref<4x32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @layout_without_inverse() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_fragment' op has no register layout with an inverse; run tile-infer-layouts first}}
    %F = tile.alloc_fragment {tile.layout = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0)>} : memref<4x32xf32, #tile.scope<fragment>>
    tile.clear %F : memref<4x32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// 2048 registers in one thread; sm_80 takes 4 x 255 (spills included).
func.func @too_many_registers() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_fragment' op needs 2048 32-bit registers a thread in its layout; the target takes at most 1020, spills included (use a smaller tile or more threads)}}
    %F = tile.alloc_fragment {tile.layout = #tile.fragment<[64, 32], threads = 1, (d0, d1) -> (0, d0 * 32 + d1), inverse = (d0, d1) -> (d1 floordiv 32, d1 mod 32)>} : memref<64x32xf32, #tile.scope<fragment>>
    tile.clear %F : memref<64x32xf32, #tile.scope<fragment>>
  }
  return
}
