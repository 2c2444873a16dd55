// Inputs that parse and verify but that the lowerings cannot take fail in
// every pipeline with the op's location and exit code 1 (they printed
// errors at <unknown>:0, and tile-to-cpu exited 0 with the IR unlowered).
// -verify-diagnostics fails on an unlocated or unexpected error.
// RUN: tile-opt %s --tile-to-cpu -split-input-file -verify-diagnostics -o /dev/null
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_80 format=isa" -split-input-file -verify-diagnostics -o /dev/null
// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" -split-input-file -verify-diagnostics -o /dev/null
// RUN: not tile-opt %s --tile-to-cpu -split-input-file -o /dev/null 2>&1 | FileCheck %s
// RUN: not tile-opt %s --tile-to-nvvm="chip=sm_80 format=isa" -split-input-file -o /dev/null 2>&1 | FileCheck %s
// CHECK-NOT: <unknown>
// CHECK: lowering-errors-located.mlir:[[#@LINE+3]]:28: error: argument #0 of @shared_argument
// CHECK-NOT: <unknown>
// expected-error @below {{argument #0 of @shared_argument has type 'memref<4xf32, #tile.scope<shared>>' in memory space #tile.scope<shared> outside a tile.kernel}}
func.func @shared_argument(%a: memref<4xf32, #tile.scope<shared>>) {
  return
}

// -----

// expected-error @below {{argument #0 of @permuted_layout has type 'memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>', whose layout affine_map<(d0, d1) -> (d1, d0)> is not strided}}
func.func @permuted_layout(%a: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, %b: memref<4x4xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.copy %a[0, 0] [4, 4] to %b[0, 0] [4, 4] : memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>> to memref<4x4xf32>
  }
  return
}

// -----

func.func @ui8_copy(%a: memref<64xui8>, %b: memref<64xui8>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.copy' op operand #0 has element type 'ui8'}}
    tile.copy %a[0] [64] to %b[0] [64] : memref<64xui8> to memref<64xui8>
  }
  return
}
