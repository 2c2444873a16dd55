// RUN: tile-opt %s --tile-verify-target=target=sm_90a -split-input-file -verify-diagnostics | FileCheck %s

// Thread-block clusters on sm_90a: at most 8 blocks (the portable size).

// CHECK-LABEL: func.func @eight_blocks
func.func @eight_blocks() {
  tile.kernel (%bx, %by) in (8, 4) threads(128) cluster(4, 2) {
  }
  return
}

// -----

func.func @sixteen_blocks() {
  // expected-error @below {{'tile.kernel' op has clusters of more than 8 blocks; sm_90a allows at most 8}}
  tile.kernel (%bx, %by) in (8, 4) threads(128) cluster(4, 4) {
  }
  return
}

// -----

func.func @overflowing_product(%n: index) {
  // expected-error @below {{'tile.kernel' op has clusters of more than 8 blocks}}
  tile.kernel (%bx, %by) in (%n, %n) threads(128) cluster(4294967296, 4294967296) {
  }
  return
}
