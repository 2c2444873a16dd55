// Broken #tile.fragment, #tile.swizzle, #tile.scope and enum attributes.
func.func @swizzle_negative() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<-1, 4, 3>) : memref<128x64xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @swizzle_shift_below_bits() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<3, 4, 2>) : memref<128x64xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @swizzle_too_wide() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<20, 4, 20>) : memref<128x64xf16, #tile.scope<shared>>
  }
  return
}

// -----
// bits + base + shift overflows int64.
func.func @swizzle_overflowing_sum() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<9223372036854775807, 9223372036854775807, 9223372036854775807>) : memref<128x64xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @swizzle_int64_min() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<-9223372036854775808, 0, 0>) : memref<128x64xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @swizzle_missing_param() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<3, 4>) : memref<128x64xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @swizzle_extra_param() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<3, 4, 3, 1>) : memref<128x64xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @swizzle_huge_literal() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<99999999999999999999, 4, 3>) : memref<128x64xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @swizzle_on_fragment() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<128x64xf16, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.swizzle<3, 4, 3>) : memref<128x64xf16, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_empty_shape() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[], threads = 4, () -> (0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_zero_dim() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[0], threads = 4, (d0) -> (d0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_kdynamic_dim() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[-9223372036854775808], threads = 4, (d0) -> (d0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_zero_threads() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 0, (d0) -> (d0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_zero_replicate() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0), replicate = 0>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_replicate_not_dividing() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0), replicate = 3>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_map_dims() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0, d1) -> (d0, d1)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_map_symbols() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0)[s0] -> (d0 floordiv s0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_map_three_results() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
// EXPECTED-ERROR: fragment layout map divides by 0
func.func @fragment_floordiv_zero() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0 floordiv 0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_mod_zero() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, d0 mod 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
// EXPECTED-ERROR: fragment layout map divides by -2
func.func @fragment_ceildiv_negative() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, d0 ceildiv -2)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
// EXPECTED-ERROR: fragment layout map overflows at element [1]
func.func @fragment_overflow() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, d0 * 9223372036854775807 + 9223372036854775807)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_thread_out_of_range() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 2, (d0) -> (d0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_slot_collision() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
// The element count overflows int64: the layout verifier must not wrap
// around; the shape mismatch with the buffer is reported.
func.func @fragment_huge_shape() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4294967296, 4294967296, 16], threads = 4, (d0, d1, d2) -> (d0, d1)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_shape_mismatch() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<8xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0)>) : memref<8xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_on_shared() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<4xf32, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0)>) : memref<4xf32, #tile.scope<shared>>
  }
  return
}

// -----
func.func @fragment_missing_threads() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], (d0) -> (d0, 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_not_a_map() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, 42>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @layout_not_tile_attr() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(42 : i64) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @layout_scope_attr() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.scope<fragment>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @generic_annotate_missing_layout(%f: memref<4xf32, #tile.scope<fragment>>) {
  "tile.annotate_layout"(%f) : (memref<4xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @generic_annotate_dynamic(%f: memref<?xf32, #tile.scope<fragment>>) {
  "tile.annotate_layout"(%f) <{layout = #tile.fragment<[4], threads = 4, (d0) -> (d0, 0)>}> : (memref<?xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @generic_annotate_global(%f: memref<4xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.annotate_layout"(%f) <{layout = #tile.swizzle<3, 4, 3>}> : (memref<4xf32>) -> ()
  }
  return
}

// -----
func.func @unknown_scope(%A: memref<4xf32, #tile.scope<global>>) {
  return
}

// -----
func.func @empty_scope(%A: memref<4xf32, #tile.scope<>>) {
  return
}

// -----
func.func @unknown_tile_attr() {
  %c = arith.constant {x = #tile.nonsense<1>} 0 : index
  return
}

// -----
func.func @unknown_policy(%A: memref<4xf32>) {
  %c = arith.constant {x = #tile.policy<diagonal>} 0 : index
  return
}

// -----
func.func @unknown_reduce_kind() {
  %c = arith.constant {x = #tile.reduce<prod>} 0 : index
  return
}

// -----
func.func @unterminated_attr() {
  %c = arith.constant {x = #tile.swizzle<3, 4, 3} 0 : index
  return
}

// -----
func.func @tile_type() {
  %c = arith.constant 0 : !tile.tile
  return
}

// -----
func.func @fragment_inverse_divides_by_zero() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0), inverse = (d0, d1) -> (d0 floordiv 0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_inverse_wrong_dims() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0), inverse = (d0, d1, d2) -> (d0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_inverse_overflow() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0), inverse = (d0, d1) -> (d0 * 9223372036854775807 * 4)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_inverse_twice() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0), inverse = (d0, d1) -> (d0), inverse = (d0, d1) -> (d0)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_replicate_after_inverse() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0), inverse = (d0, d1) -> (d0), replicate = 1>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @fragment_inverse_wrong() {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0), inverse = (d0, d1) -> (d1)>) : memref<4xf32, #tile.scope<fragment>>
  }
  return
}
