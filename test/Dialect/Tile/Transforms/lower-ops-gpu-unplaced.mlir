// On GPUs tile-lower-ops lowers placed buffers only: one left unplaced is
// reported (tile-place-buffers and the passes after it come first), on
// NVIDIA and AMD targets alike.
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/unplaced.mlir --tile-lower-ops=target=sm_80 -verify-diagnostics
// RUN: tile-opt %t/unplaced-gfx942.mlir --tile-lower-ops=target=gfx942 -verify-diagnostics

//--- unplaced.mlir
func.func @unplaced() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_local' op has no storage yet; tile-lower-ops runs on placed buffers (run tile-place-buffers first)}}
    %L = tile.alloc_local : memref<4xf32, #tile.scope<local>>
    tile.clear %L : memref<4xf32, #tile.scope<local>>
  }
  return
}

//--- unplaced-gfx942.mlir
func.func @unplaced_gfx942() {
  tile.kernel (%bx) in (1) threads(64) {
    // expected-error @below {{'tile.alloc_local' op has no storage yet; tile-lower-ops runs on placed buffers (run tile-place-buffers first)}}
    %L = tile.alloc_local : memref<4xf32, #tile.scope<local>>
    tile.clear %L : memref<4xf32, #tile.scope<local>>
  }
  return
}
