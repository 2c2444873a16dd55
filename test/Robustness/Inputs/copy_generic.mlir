// Broken tile.copy ops in generic form: attribute and operand-segment
// errors that the custom parser never produces.
func.func @missing_segments(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @segments_wrong_sum(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @segments_negative(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>, %i: index) {
  "tile.copy"(%A, %i, %S) <{operandSegmentSizes = array<i32: 1, -1, 1, 2>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, index, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @segments_too_short(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 1>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @segments_too_long(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @segments_i64(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i64: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
// Two memrefs in the source segment: the target is then an index.
func.func @segments_shifted(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>, %i: index) {
  "tile.copy"(%A, %S, %i) <{operandSegmentSizes = array<i32: 2, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>, index) -> ()
  return
}

// -----
func.func @no_operands() {
  "tile.copy"() <{operandSegmentSizes = array<i32: 0, 0, 0, 0>, source_sizes = array<i64>, static_source_offsets = array<i64>, static_target_offsets = array<i64>, target_sizes = array<i64>}> : () -> ()
  return
}

// -----
func.func @missing_source_sizes(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @missing_static_offsets(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @sizes_i32(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i32: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @offsets_too_short(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----
func.func @sizes_too_short(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----
// kDynamic offsets without operands for them.
func.func @kdynamic_offsets_no_operands(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----
// Operands for offsets that are static.
func.func @operands_without_kdynamic(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>, %i: index) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %i, %i, %S) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, index, index, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----
func.func @kdynamic_sizes(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: -9223372036854775808, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: -9223372036854775808, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----
func.func @kdynamic_offset_into_shared(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: -9223372036854775807, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----
// EXPECTED-ERROR: does not fit in the shared buffer
func.func @overflow_offset_into_shared(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 9223372036854775800, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----
func.func @offset_operand_f32(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>, %f: f32) {
  "tile.copy"(%A, %f, %S) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: -9223372036854775808, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, f32, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @source_not_memref(%A: tensor<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (tensor<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @source_unranked(%A: memref<*xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<*xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @inst_wrong_attr(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>, inst = #tile.policy<square>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @pad_unit(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>, pad}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @pad_index_for_f16(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>, pad = 0 : index}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----
func.func @with_result(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  %r = "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> index
  return
}

// -----
func.func @with_region(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> ({
  }) : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  return
}

// -----
func.func @local_space_space(%A: memref<16x16xf16, #tile.scope<local>>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 8, 16>}> : (memref<16x16xf16, #tile.scope<local>>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----
func.func @gpu_space(%A: memref<16x16xf16, #gpu.address_space<workgroup>>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}
// -----
// Segments that add up and type-check, but give the source two buffers and
// the target none: getTarget() would read past its (empty) segment.
// EXPECTED-ERROR: operandSegmentSizes must give one source and one target buffer, got 2 and 0
func.func @segments_two_sources_no_target(%A: memref<?x?xf32>, %S: memref<32x64xf32, #tile.scope<shared>>, %i: index) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%S, %A, %i, %i) <{operandSegmentSizes = array<i32: 2, 1, 0, 1>, source_sizes = array<i64: 32, 64>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: -9223372036854775808, -9223372036854775808>, target_sizes = array<i64: 32, 64>}> : (memref<32x64xf32, #tile.scope<shared>>, memref<?x?xf32>, index, index) -> ()
  }
  return
}

// -----
// EXPECTED-ERROR: operandSegmentSizes must give one source and one target buffer, got 0 and 2
func.func @segments_no_source(%A: memref<16x16xf16>, %S: memref<16x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.copy"(%A, %S) <{operandSegmentSizes = array<i32: 0, 0, 2, 0>, source_sizes = array<i64: 16, 16>, static_source_offsets = array<i64: 0, 0>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 16, 16>}> : (memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>) -> ()
  }
  return
}
