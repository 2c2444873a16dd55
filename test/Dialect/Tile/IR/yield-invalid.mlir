// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @in_func() {
  // expected-error @below {{'tile.yield' op expects parent op to be one of 'tile.kernel, tile.parallel, tile.pipelined'}}
  tile.yield
}

// -----

func.func @in_scf_for(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (1) threads(32) {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @below {{'tile.yield' op expects parent op to be one of 'tile.kernel, tile.parallel, tile.pipelined'}}
      "tile.yield"() : () -> ()
    }
  }
  return
}

// -----

func.func @not_last() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.yield' op must be the last operation in the parent block}}
    tile.yield
    %l = tile.alloc_local : memref<1xf32, #tile.scope<local>>
  }
  return
}

// -----

// tile.yield carries no values.
func.func @with_operand(%x: index) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.yield' op requires zero operands}}
    "tile.yield"(%x) : (index) -> ()
  }
  return
}

// -----

func.func @with_operand_custom(%x: index) {
  tile.kernel (%bx) in (1) threads(32) {
    // The custom form has no operand list: %x starts the next operation.
    // expected-error @below {{expected '=' after SSA name}}
    tile.yield %x
  }
  return
}
