// RUN: tile-opt %s --tile-verify-target=target=sm_90a -verify-diagnostics
// RUN: tile-opt %s --tile-verify-target=target=cpu -verify-diagnostics

// Two top-level ops in a file are wrapped in an implicit module: the inner
// module's functions would reach the pipelines' conversions configured for
// the outer one only. Refused where the nested module stands.
// expected-error @below {{a nested builtin.module is not compiled: the tile pipelines take the functions of the top-level module (one top-level op a file)}}
module {
  func.func @f(%out: memref<4xf32>) {
    tile.kernel (%bx) in (1) threads(32) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%c0] : memref<4xf32>
    }
    return
  }
}
%stray = arith.constant false
