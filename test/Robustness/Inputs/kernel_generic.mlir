// Broken tile.kernel ops in generic form: the custom parser is bypassed, so
// only ODS constraints and KernelOp::verify stand between them and the
// passes.
func.func @missing_static_grid() {
  "tile.kernel"() <{threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @missing_threads() {
  "tile.kernel"() <{static_grid = array<i64: 4>}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @static_grid_i32() {
  "tile.kernel"() <{static_grid = array<i32: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @static_grid_dense() {
  "tile.kernel"() <{static_grid = dense<4> : tensor<1xi64>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @threads_string() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = "many"}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @threads_i32() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i32}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @threads_negative() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = -128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
// EXPECTED-ERROR: needs threads > 0, got -9223372036854775808
func.func @threads_int64_min() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = -9223372036854775808 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @empty_grid() {
  "tile.kernel"() <{static_grid = array<i64>, threads = 128 : i64}> ({
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
// kDynamic in the static grid without a dynamic operand for it.
func.func @kdynamic_without_operand() {
  "tile.kernel"() <{static_grid = array<i64: -9223372036854775808>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
// A dynamic operand without a kDynamic slot for it.
func.func @operand_without_kdynamic(%n: index) {
  "tile.kernel"(%n) <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : (index) -> ()
  return
}

// -----
func.func @dynamic_operand_f32(%n: f32) {
  "tile.kernel"(%n) <{static_grid = array<i64: -9223372036854775808>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : (f32) -> ()
  return
}

// -----
func.func @zero_blocks() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  }) : () -> ()
  return
}

// -----
func.func @no_region() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> : () -> ()
  return
}

// -----
func.func @two_regions() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }, {
  ^bb0(%by: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @two_blocks() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  ^bb1:
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @empty_block() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
  }) : () -> ()
  return
}

// -----
func.func @no_terminator() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    %c = "arith.constant"() <{value = 0 : index}> : () -> index
  }) : () -> ()
  return
}

// -----
func.func @block_arg_i32() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: i32):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @block_arg_memref() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: memref<4xf16>):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @no_block_args() {
  "tile.kernel"() <{static_grid = array<i64: 4, 4>, threads = 128 : i64}> ({
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @with_result() {
  %r = "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> index
  return
}

// -----
func.func @cluster_i32() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64, cluster = array<i32: 2>}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @cluster_kdynamic() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64, cluster = array<i64: -9223372036854775808>}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @cluster_on_dynamic_grid(%n: index) {
  "tile.kernel"(%n) <{static_grid = array<i64: -9223372036854775808>, threads = 128 : i64, cluster = array<i64: 0>}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : (index) -> ()
  return
}

// -----
func.func @yield_with_operand() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"(%bx) : (index) -> ()
  }) : () -> ()
  return
}

// -----
func.func @yield_outside() {
  "tile.yield"() : () -> ()
  return
}

// -----
func.func @yield_result() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    %x = "tile.yield"() : () -> index
  }) : () -> ()
  return
}

// -----
func.func @yield_in_middle() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----
func.func @nested_generic() {
  "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.kernel"() <{static_grid = array<i64: 4>, threads = 128 : i64}> ({
    ^bb0(%cx: index):
      "tile.yield"() : () -> ()
    }) : () -> ()
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}
