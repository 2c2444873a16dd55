// Broken tile.kernel ops, custom form. Each split-input-file case must fail with a
// diagnostic (see test/Robustness/corpus.test).
func.func @missing_in() {
  tile.kernel (%bx) (4) threads(128) {
  }
  return
}

// -----
func.func @empty_grid() {
  tile.kernel () in () threads(128) {
  }
  return
}

// -----
func.func @four_dims() {
  tile.kernel (%a, %b, %c, %d) in (1, 2, 3, 4) threads(128) {
  }
  return
}

// -----
func.func @negative_extent() {
  tile.kernel (%bx) in (-4) threads(128) {
  }
  return
}

// -----
func.func @zero_extent() {
  tile.kernel (%bx, %by) in (4, 0) threads(128) {
  }
  return
}

// -----
// INT64_MIN is ShapedType::kDynamic: a static list may not smuggle it in.
func.func @kdynamic_extent() {
  tile.kernel (%bx) in (-9223372036854775808) threads(128) {
  }
  return
}

// -----
func.func @huge_extent_literal() {
  tile.kernel (%bx) in (99999999999999999999999) threads(128) {
  }
  return
}

// -----
func.func @zero_threads() {
  tile.kernel (%bx) in (4) threads(0) {
  }
  return
}

// -----
// EXPECTED-ERROR: needs threads > 0, got -1
func.func @negative_threads() {
  tile.kernel (%bx) in (4) threads(-1) {
  }
  return
}

// -----
func.func @int64_min_threads() {
  tile.kernel (%bx) in (4) threads(-9223372036854775808) {
  }
  return
}

// -----
func.func @huge_threads_literal() {
  tile.kernel (%bx) in (4) threads(18446744073709551616) {
  }
  return
}

// -----
func.func @missing_threads() {
  tile.kernel (%bx) in (4) {
  }
  return
}

// -----
func.func @cluster_rank() {
  tile.kernel (%bx, %by) in (4, 4) threads(128) cluster(2) {
  }
  return
}

// -----
func.func @cluster_zero() {
  tile.kernel (%bx) in (4) threads(128) cluster(0) {
  }
  return
}

// -----
func.func @cluster_negative() {
  tile.kernel (%bx) in (4) threads(128) cluster(-2) {
  }
  return
}

// -----
func.func @cluster_not_dividing() {
  tile.kernel (%bx) in (6) threads(128) cluster(4) {
  }
  return
}

// -----
func.func @cluster_empty() {
  tile.kernel (%bx) in (6) threads(128) cluster() {
  }
  return
}

// -----
func.func @too_few_indices() {
  tile.kernel (%bx) in (4, 4) threads(128) {
  }
  return
}

// -----
func.func @too_many_indices() {
  tile.kernel (%bx, %by, %bz) in (4) threads(128) {
  }
  return
}

// -----
func.func @nested() {
  tile.kernel (%bx) in (4) threads(128) {
    tile.kernel (%cx) in (4) threads(128) {
    }
  }
  return
}

// -----
func.func @no_region() {
  tile.kernel (%bx) in (4) threads(128)
  return
}

// -----
func.func @dynamic_extent_not_index(%n: i32) {
  tile.kernel (%bx) in (%n) threads(128) {
  }
  return
}

// -----
func.func @dynamic_extent_undefined() {
  tile.kernel (%bx) in (%nope) threads(128) {
  }
  return
}

// -----
func.func @wrong_terminator() {
  tile.kernel (%bx) in (4) threads(128) {
    func.return
  }
  return
}

// -----
func.func @yield_with_operands(%n: index) {
  tile.kernel (%bx) in (4) threads(128) {
    tile.yield %n : index
  }
  return
}

// -----
func.func @two_blocks() {
  tile.kernel (%bx) in (4) threads(128) {
    cf.br ^bb1
  ^bb1:
    tile.yield
  }
  return
}

// -----
func.func @index_used_outside() {
  tile.kernel (%bx) in (4) threads(128) {
  }
  %x = arith.addi %bx, %bx : index
  return
}

// -----
func.func @duplicate_index_names() {
  tile.kernel (%bx, %bx) in (4, 4) threads(128) {
  }
  return
}

// -----
func.func @typed_indices() {
  tile.kernel (%bx : i32) in (4) threads(128) {
  }
  return
}

// -----
func.func @attr_dict_without_keyword() {
  tile.kernel (%bx) in (4) threads(128) {foo} {
  }
  return
}

// -----
func.func @unterminated() {
  tile.kernel (%bx) in (4) threads(128) {
