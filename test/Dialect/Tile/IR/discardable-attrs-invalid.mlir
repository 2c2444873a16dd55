// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Undeclared tile.* attributes, declared ones on the wrong op or with the
// wrong value.

// expected-error @below {{'tile.no_such_thing' is not an attribute of the tile dialect}}
func.func @undeclared() attributes {tile.no_such_thing} {
  return
}

// -----

func.func @wrong_op(%v: memref<4xf32>) {
  // expected-error @below {{'tile.scratch_offset' is only valid on 'tile.reduce', 'tile.gemm_sp', 'tile.finalize_reducer'}}
  %c = memref.cast %v {tile.scratch_offset = 0 : i64} : memref<4xf32> to memref<?xf32>
  return
}

// -----

func.func @wrong_value() {
  // expected-error @below {{'tile.producer_threads' must be a positive i64, got 0 : i64}}
  tile.kernel (%bx) in (1) threads(128) attributes {tile.producer_threads = 0 : i64} {
  }
  return
}

// -----

// The placed buffers' state is tile.bind_storage's own (declared) attributes.
func.func @cast_attributes(%v: memref<64x64xf16, 3>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.lowered' is not an attribute of the tile dialect}}
    %As = builtin.unrealized_conversion_cast %v : memref<64x64xf16, 3> to memref<64x64xf16, #tile.scope<shared>> {tile.lowered}
  }
  return
}

// -----

// expected-error @below {{'tile.shared_bytes' is only valid on 'tile.kernel'}}
func.func @shared_bytes_on_func() attributes {tile.shared_bytes = 0 : i64} {
  return
}

// -----

func.func @layout_not_a_fragment() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.layout' must be a #tile.fragment, got #tile.scope<shared>}}
    %F = tile.alloc_fragment {tile.layout = #tile.scope<shared>} : memref<32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// expected-error @below {{'tile.tma' must be {param = i64, box = array<i64>, swizzle = i64[, store = bool]}, got {box = array<i64: 64, 64>, param = 0 : i64}}}
func.func @tma_missing_swizzle(%desc: !llvm.ptr {tile.tma = {param = 0 : i64, box = array<i64: 64, 64>}}) {
  return
}

// -----

// expected-error @below {{'tile.tma' belongs on a function argument}}
func.func @tma_on_an_op() attributes {tile.tma = {param = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64}} {
  return
}

// -----

// expected-error @below {{'tile.warp_specialize' belongs on an op, one of 'tile.pipelined'}}
func.func @switch_on_an_argument(%x: i32 {tile.warp_specialize = false}) {
  return
}

// -----

// expected-error @below {{'tile.min_ptx' is only valid on 'llvm.inline_asm'}}
func.func @min_ptx_on_a_function() attributes {tile.min_ptx = 81 : i64} {
  return
}

// -----

func.func @min_ptx_not_positive(%x: i32) {
  // expected-error @below {{'tile.min_ptx' must be a positive i64, got 0 : i64}}
  "llvm.inline_asm"(%x) <{asm_string = "", constraints = "r", has_side_effects}> {tile.min_ptx = 0 : i64} : (i32) -> ()
  return
}
