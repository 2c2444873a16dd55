// Broken tile.copy ops, custom form: its optional offsets / sizes syntax.
func.func @missing_to(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @dynamic_without_offsets(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @sizes_not_inferable(%A: memref<?x?xf16>, %B: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    tile.copy %A[0, 0] to %B[0, 0] : memref<?x?xf16> to memref<?x?xf16>
  }
  return
}

// -----
func.func @sizes_from_other_rank(%A: memref<?x?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0, 0] to %s : memref<?x?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @too_few_offsets(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0] [16, 16] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @empty_offsets(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[] [16, 16] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @empty_sizes(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @too_many_sizes(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [16, 16, 1] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @zero_size(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [0, 16] to %s[0, 0] [0, 16] : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @negative_size(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [-16, 16] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
// INT64_MIN (kDynamic) as a static size.
func.func @kdynamic_size(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [-9223372036854775808, 16] to %s[0, 0] [-9223372036854775808, 16] : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @dynamic_size_operand(%A: memref<?x?xf16>, %n: index) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [%n, 16] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @region_mismatch(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [16, 8] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @out_of_shared(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [16, 16] to %s[24, 0] : memref<?x?xf16> to memref<32x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @negative_shared_offset(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [16, 16] to %s[-1, 0] : memref<?x?xf16> to memref<32x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
// offset + size overflows int64: must not wrap around into "fits".
// EXPECTED-ERROR: does not fit in the shared buffer
func.func @overflowing_shared_offset(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [16, 16] to %s[9223372036854775807, 0] : memref<?x?xf16> to memref<32x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @huge_size(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [9223372036854775807, 16] to %s[1, 0] [9223372036854775807, 16] : memref<?x?xf16> to memref<32x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @tensor_type(%A: tensor<16x16xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A to %s : tensor<16x16xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @unranked(%A: memref<*xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] to %s : memref<*xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @type_mismatch_operand(%A: memref<?x?xf32>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @offset_not_index(%A: memref<?x?xf16>, %i: i32) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[%i, 0] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @foreign_space(%A: memref<16x16xf16, 3>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A to %s : memref<16x16xf16, 3> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @vector_elements(%A: memref<16x16xvector<4xf16>>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A to %s : memref<16x16xvector<4xf16>> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @pad_wrong_type(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] to %s {pad = 0 : i32} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @pad_not_scalar(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] to %s {pad = dense<0.0> : tensor<2xf16>} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @pad_string(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] to %s {pad = "zero"} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @cp_async_wrong_direction() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %t = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %s to %t {inst = #tile.copy_inst<cp_async>} : memref<16x16xf16, #tile.scope<shared>> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @tma_fragment(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<16x16xf16, #tile.scope<fragment>>
    tile.copy %A[0, 0] to %f {inst = #tile.copy_inst<tma>} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @ldmatrix_from_global(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<16x16xf16, #tile.scope<fragment>>
    tile.copy %A[0, 0] to %f {inst = #tile.copy_inst<ldmatrix>} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @stmatrix_to_global(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<16x16xf16, #tile.scope<fragment>>
    tile.copy %f to %A[0, 0] {inst = #tile.copy_inst<stmatrix>} : memref<16x16xf16, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

// -----
func.func @unknown_inst(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] to %s {inst = #tile.copy_inst<dma>} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @inst_not_enum(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] to %s {inst = 3 : i32} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @unclosed_offsets(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0 to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @sizes_with_ssa_in_static(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [16, ?] to %s : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

