// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @no_dims() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.parallel' op needs at least one dimension}}
    tile.parallel () in () {
    }
  }
  return
}

// -----

func.func @zero_extent() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.parallel' op extent 1 must be positive, got 0}}
    tile.parallel (%i, %j) in (4, 0) {
    }
  }
  return
}

// -----

func.func @negative_extent() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.parallel' op extent 0 must be positive, got -4}}
    tile.parallel (%i) in (-4) {
    }
  }
  return
}

// -----

// The ODS region constraint fires before the op's own "needs a body".
func.func @empty_region() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.parallel' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    }) : () -> ()
  }
  return
}

// -----

func.func @too_few_ivs() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.parallel' op body must take one index per dimension: expected 2, got 1}}
    tile.parallel (%i) in (4, 4) {
    }
  }
  return
}

// -----

func.func @too_many_ivs() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.parallel' op body must take one index per dimension: expected 1, got 2}}
    tile.parallel (%i, %j) in (4) {
    }
  }
  return
}

// -----

func.func @iv_type() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.parallel' op induction variables must have type index, got 'i64'}}
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    ^bb0(%i: i64):
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----

func.func @outside_kernel() {
  // expected-error @below {{'tile.parallel' op must be inside a tile.kernel: tile ops and buffers belong to the blocks of a kernel}}
  tile.parallel (%i) in (4) {
  }
  return
}

// -----

func.func @extents_attr_kind() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{invalid properties {extents = [4]} for op tile.parallel: Invalid attribute `extents` in property conversion: [4]}}
    "tile.parallel"() <{extents = [4]}> ({
    ^bb0(%i: index):
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----

func.func @non_integer_extent(%n: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{expected integer value}}
    tile.parallel (%i) in (%n) {
    }
  }
  return
}
