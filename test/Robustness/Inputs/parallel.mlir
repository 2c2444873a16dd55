// Broken tile.parallel ops, custom and generic form.
func.func @empty_extents() {
  tile.kernel (%bx) in (4) threads(128) {
    tile.parallel () in () {
    }
  }
  return
}

// -----
func.func @zero_extent() {
  tile.kernel (%bx) in (4) threads(128) {
    tile.parallel (%i) in (0) {
    }
  }
  return
}

// -----
func.func @negative_extent() {
  tile.kernel (%bx) in (4) threads(128) {
    tile.parallel (%i, %j) in (4, -4) {
    }
  }
  return
}

// -----
func.func @kdynamic_extent() {
  tile.kernel (%bx) in (4) threads(128) {
    tile.parallel (%i) in (-9223372036854775808) {
    }
  }
  return
}

// -----
func.func @dynamic_extent(%n: index) {
  tile.kernel (%bx) in (4) threads(128) {
    tile.parallel (%i) in (%n) {
    }
  }
  return
}

// -----
func.func @ivs_mismatch() {
  tile.kernel (%bx) in (4) threads(128) {
    tile.parallel (%i) in (4, 4) {
    }
  }
  return
}

// -----
func.func @outside_kernel() {
  tile.parallel (%i) in (4) {
  }
  return
}

// -----
func.func @missing_in() {
  tile.kernel (%bx) in (4) threads(128) {
    tile.parallel (%i) (4) {
    }
  }
  return
}

// -----
func.func @no_region() {
  tile.kernel (%bx) in (4) threads(128) {
    tile.parallel (%i) in (4)
  }
  return
}

// -----
func.func @generic_missing_extents() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() ({
    ^bb0(%i: index):
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----
func.func @generic_extents_wrong_type() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() <{extents = [4]}> ({
    ^bb0(%i: index):
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----
func.func @generic_zero_blocks() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    }) : () -> ()
  }
  return
}

// -----
func.func @generic_two_blocks() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    ^bb0(%i: index):
      "cf.br"()[^bb1] : () -> ()
    ^bb1:
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----
func.func @generic_block_arg_f32() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    ^bb0(%i: f32):
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----
func.func @generic_no_block_args() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() <{extents = array<i64: 4>}> ({
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----
func.func @generic_extra_block_args() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    ^bb0(%i: index, %j: index):
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----
func.func @generic_operands(%n: index) {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"(%n) <{extents = array<i64: 4>}> ({
    ^bb0(%i: index):
      "tile.yield"() : () -> ()
    }) : (index) -> ()
  }
  return
}

// -----
func.func @generic_empty_block() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    ^bb0(%i: index):
    }) : () -> ()
  }
  return
}

// -----
func.func @generic_wrong_terminator() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    ^bb0(%i: index):
      "func.return"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----
func.func @generic_empty_extents() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.parallel"() <{extents = array<i64>}> ({
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}
