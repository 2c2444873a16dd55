// tile-guard-memory-access: an element access to an on-chip buffer whose
// index certainly leaves it (an affine function of loops with constant
// bounds that always reach the access) is reported where it is; accesses
// that may stay inside are guarded instead.
//
// RUN: tile-opt %s -split-input-file --tile-guard-memory-access -verify-diagnostics

// TileLang's attention-sink forward writes sinks[i] of a fragment of
// `heads` elements for every row i of the block.
func.func @parallel_past_fragment(%S: memref<32xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %sinks = tile.alloc_fragment : memref<32xf16, #tile.scope<fragment>>
    tile.parallel (%i) in (64) {
      %c0 = arith.constant 0 : index
      %v = memref.load %S[%c0] : memref<32xf16>
      // expected-error @+2 {{store index runs from 0 to 63 in the loops around it, outside dimension 0 of the fragment buffer}}
      // expected-note @+1 {{indices of fragment buffers must lie in [0, 32)}}
      memref.store %v, %sinks[%i] : memref<32xf16, #tile.scope<fragment>>
    }
  }
  return
}

// -----

// A strided serial loop inside a parallel one: k = 0, 3, 6, 9 and the
// index 2k + 1 reaches 19 in a row of 19.
func.func @strided_loop_past_local(%A: memref<19xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %l = tile.alloc_local : memref<2x19xf32, #tile.scope<local>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c10 = arith.constant 10 : index
    scf.for %k = %c0 to %c10 step %c3 {
      %d = arith.muli %k, %c2 : index
      %j = arith.addi %d, %c1 : index
      // expected-error @+2 {{load index runs from 1 to 19 in the loops around it, outside dimension 1 of the local buffer}}
      // expected-note @+1 {{[0, 19)}}
      %v = memref.load %l[%c1, %j] : memref<2x19xf32, #tile.scope<local>>
      memref.store %v, %A[%k] : memref<19xf32>
    }
  }
  return
}

// -----

// Under a condition, or with an index whose range the loop bounds do not
// pin down (i - i is 0), the access may stay inside: guarded, no error.
func.func @maybe_inside(%S: memref<32xf16>, %n: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %sinks = tile.alloc_fragment : memref<32xf16, #tile.scope<fragment>>
    tile.parallel (%i) in (64) {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %v = memref.load %S[%c0] : memref<32xf16>
      %in = arith.cmpi ult, %i, %c32 : index
      scf.if %in {
        memref.store %v, %sinks[%i] : memref<32xf16, #tile.scope<fragment>>
      }
      %z = arith.subi %i, %i : index
      memref.store %v, %sinks[%z] : memref<32xf16, #tile.scope<fragment>>
      %m = arith.addi %i, %n : index
      memref.store %v, %sinks[%m] : memref<32xf16, #tile.scope<fragment>>
    }
  }
  return
}
