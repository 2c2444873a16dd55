// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @no_grid() {
  // expected-error @below {{'tile.kernel' op needs a grid of 1 to 3 dimensions, got 0}}
  tile.kernel () in () threads(128) {
  }
  return
}

// -----

func.func @four_dims() {
  // expected-error @below {{'tile.kernel' op needs a grid of 1 to 3 dimensions, got 4}}
  tile.kernel (%a, %b, %c, %d) in (1, 1, 1, 1) threads(128) {
  }
  return
}

// -----

// One dynamic extent in static_grid but no operand for it.
// expected-error @below {{expected 1 dynamic grid values}}
"tile.kernel"() <{static_grid = array<i64: -9223372036854775808>, threads = 128 : i64}> ({
^bb0(%bx: index):
  "tile.yield"() : () -> ()
}) : () -> ()

// -----

func.func @zero_extent() {
  // expected-error @below {{'tile.kernel' op grid extent 1 must be positive, got 0}}
  tile.kernel (%bx, %by) in (4, 0) threads(128) {
  }
  return
}

// -----

func.func @negative_extent() {
  // expected-error @below {{'tile.kernel' op grid extent 0 must be positive, got -2}}
  tile.kernel (%bx) in (-2) threads(128) {
  }
  return
}

// -----

// The body is a region with exactly one block: the ODS constraint fires
// before the op's own "needs a body" check.
// expected-error @below {{'tile.kernel' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
"tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
}) : () -> ()

// -----

func.func @too_few_indices() {
  // expected-error @below {{'tile.kernel' op body must take one block index per grid dimension: expected 2, got 1}}
  tile.kernel (%bx) in (4, 4) threads(128) {
  }
  return
}

// -----

func.func @too_many_indices() {
  // expected-error @below {{'tile.kernel' op body must take one block index per grid dimension: expected 1, got 3}}
  tile.kernel (%bx, %by, %bz) in (4) threads(128) {
  }
  return
}

// -----

// expected-error @below {{'tile.kernel' op block indices must have type index, got 'i32'}}
"tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
^bb0(%bx: i32):
  "tile.yield"() : () -> ()
}) : () -> ()

// -----

func.func @zero_threads() {
  // expected-error @below {{'tile.kernel' op needs threads > 0, got 0}}
  tile.kernel (%bx) in (4) threads(0) {
  }
  return
}

// -----

func.func @negative_threads() {
  // expected-error @below {{'tile.kernel' op needs threads > 0, got -32}}
  tile.kernel (%bx) in (4) threads(-32) {
  }
  return
}

// -----

func.func @cluster_rank() {
  // expected-error @below {{'tile.kernel' op cluster must have one extent per grid dimension (2), got 1}}
  tile.kernel (%bx, %by) in (4, 4) threads(128) cluster(2) {
  }
  return
}

// -----

func.func @cluster_zero(%n: index) {
  // expected-error @below {{'tile.kernel' op cluster extent 1 must be positive, got 0}}
  tile.kernel (%bx, %by) in (%n, 4) threads(128) cluster(1, 0) {
  }
  return
}

// -----

func.func @cluster_not_dividing() {
  // expected-error @below {{'tile.kernel' op cluster extent 0 (4) must divide the grid extent (6)}}
  tile.kernel (%bx) in (6) threads(128) cluster(4) {
  }
  return
}

// -----

func.func @nested() {
  tile.kernel (%bx) in (4) threads(128) {
    // expected-error @below {{'tile.kernel' op cannot be nested in another tile.kernel}}
    tile.kernel (%i) in (2) threads(32) {
    }
  }
  return
}

// -----

func.func @nested_deep(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx) in (4) threads(128) {
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      // expected-error @below {{'tile.kernel' op cannot be nested in another tile.kernel}}
      tile.kernel (%i) in (2) threads(32) {
      }
    }
  }
  return
}

// -----

func.func @missing_threads() {
  // expected-error @below {{expected 'threads'}}
  tile.kernel (%bx) in (4) {
  }
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @non_index_extent(%n: i32) {
  // expected-error @below {{use of value '%n' expects different type than prior uses: 'index' vs 'i32'}}
  tile.kernel (%bx) in (%n) threads(128) {
  }
  return
}

// -----

// Only tile.yield ends a kernel body.
func.func @wrong_terminator() {
  // expected-error @below {{'tile.kernel' op expects regions to end with 'tile.yield', found 'llvm.unreachable'}}
  // expected-note @below {{in custom textual format, the absence of terminator implies 'tile.yield'}}
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    llvm.unreachable
  }) : () -> ()
  return
}

// -----

// Tile buffers belong to the blocks of a kernel: a shared buffer from a
// function argument has no storage in the block.
func.func @captured_shared(%a: memref<4xf32, #tile.scope<shared>>, %g: memref<4xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.copy' op uses a shared buffer defined outside its tile.kernel ('memref<4xf32, #tile.scope<shared>>'); tile buffers belong to the blocks of a kernel: allocate it inside with tile.alloc_shared, or pass a global memref (no memory space)}}
    tile.copy %a to %g[0] : memref<4xf32, #tile.scope<shared>> to memref<4xf32>
  }
  return
}

// -----

func.func @captured_fragment_in_parallel(%a: memref<4xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(32) {
    tile.parallel (%i) in (4) {
      // expected-error @below {{'memref.load' op uses a fragment buffer defined outside its tile.kernel}}
      %x = memref.load %a[%i] : memref<4xf32, #tile.scope<fragment>>
    }
  }
  return
}
