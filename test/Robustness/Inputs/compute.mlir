// Broken tile.gemm, tile.gemm_sp, tile.fill, tile.clear and tile.reduce ops,
// custom and generic form.
func.func @gemm_rank1() {
  tile.kernel (%bx) in (4) threads(128) {
    %a = tile.alloc_shared : memref<16xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_dynamic(%a: memref<?x16xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (4) threads(128) {
    %b = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<?x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_global_operand(%a: memref<16x16xf16>) {
  tile.kernel (%bx) in (4) threads(128) {
    %b = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<16x16xf16>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_accumulator_shared() {
  tile.kernel (%bx) in (4) threads(128) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc_shared : memref<16x16xf32, #tile.scope<shared>>
    tile.gemm %a, %a, %c : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>
  }
  return
}

// -----
func.func @gemm_k_mismatch() {
  tile.kernel (%bx) in (4) threads(128) {
    %a = tile.alloc_shared : memref<16x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<16x32xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_c_mismatch() {
  tile.kernel (%bx) in (4) threads(128) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x32xf32, #tile.scope<fragment>>
    tile.gemm %a, %a, %c {transpose_a} : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x32xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_types() {
  tile.kernel (%bx) in (4) threads(128) {
    %a = tile.alloc_shared : memref<16x16xi1, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xindex, #tile.scope<fragment>>
    tile.gemm %a, %a, %c : memref<16x16xi1, #tile.scope<shared>>, memref<16x16xi1, #tile.scope<shared>>, memref<16x16xindex, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_two_operands() {
  tile.kernel (%bx) in (4) threads(128) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    tile.gemm %a, %a : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @gemm_generic_policy_wrong(%a: memref<16x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  "tile.gemm"(%a, %a, %c) <{policy = #tile.copy_inst<auto>}> : (memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @gemm_generic_transpose_not_unit(%a: memref<16x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  "tile.gemm"(%a, %a, %c) <{transpose_a = 1 : i64}> : (memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @gemm_generic_four_operands(%a: memref<16x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  "tile.gemm"(%a, %a, %c, %c) : (memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>, memref<16x16xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @gemm_generic_rank0(%a: memref<f16, #tile.scope<shared>>, %c: memref<f32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.gemm"(%a, %a, %c) : (memref<f16, #tile.scope<shared>>, memref<f16, #tile.scope<shared>>, memref<f32, #tile.scope<fragment>>) -> ()
  }
  return
}

// -----
func.func @gemm_sp_k_not_multiple_of_4(%a: memref<16x3xf16, #tile.scope<shared>>, %e: memref<16x1xi16, #tile.scope<shared>>, %b: memref<6x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.gemm_sp %a, %e, %b, %c : memref<16x3xf16, #tile.scope<shared>>, memref<16x1xi16, #tile.scope<shared>>, memref<6x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_sp_meta_i4(%a: memref<16x16xf16, #tile.scope<shared>>, %e: memref<16x8xi4, #tile.scope<shared>>, %b: memref<32x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.gemm_sp %a, %e, %b, %c : memref<16x16xf16, #tile.scope<shared>>, memref<16x8xi4, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_sp_meta_float(%a: memref<16x16xf16, #tile.scope<shared>>, %e: memref<16x2xf16, #tile.scope<shared>>, %b: memref<32x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.gemm_sp %a, %e, %b, %c : memref<16x16xf16, #tile.scope<shared>>, memref<16x2xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_sp_meta_shape(%a: memref<16x16xf16, #tile.scope<shared>>, %e: memref<16x3xi16, #tile.scope<shared>>, %b: memref<32x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.gemm_sp %a, %e, %b, %c : memref<16x16xf16, #tile.scope<shared>>, memref<16x3xi16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
// K = 4 is not a multiple of the 8-bit metadata width.
func.func @gemm_sp_k_not_multiple_of_width(%a: memref<16x2xf16, #tile.scope<shared>>, %e: memref<16x0xi8, #tile.scope<shared>>, %b: memref<4x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.gemm_sp %a, %e, %b, %c : memref<16x2xf16, #tile.scope<shared>>, memref<16x0xi8, #tile.scope<shared>>, memref<4x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_sp_f32(%a: memref<16x16xf32, #tile.scope<shared>>, %e: memref<16x2xi16, #tile.scope<shared>>, %b: memref<32x16xf32, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.gemm_sp %a, %e, %b, %c : memref<16x16xf32, #tile.scope<shared>>, memref<16x2xi16, #tile.scope<shared>>, memref<32x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @gemm_sp_meta_rank3(%a: memref<16x16xf16, #tile.scope<shared>>, %e: memref<16x2x1xi16, #tile.scope<shared>>, %b: memref<32x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.gemm_sp"(%a, %e, %b, %c) : (memref<16x16xf16, #tile.scope<shared>>, memref<16x2x1xi16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>) -> ()
  }
  return
}

// -----
func.func @gemm_sp_huge_k(%a: memref<16x4611686018427387904xf16, #tile.scope<shared>>, %e: memref<16x2xi16, #tile.scope<shared>>, %b: memref<9223372036854775800x16xf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.gemm_sp"(%a, %e, %b, %c) : (memref<16x4611686018427387904xf16, #tile.scope<shared>>, memref<16x2xi16, #tile.scope<shared>>, memref<9223372036854775800x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>) -> ()
  }
  return
}

// -----
func.func @fill_global(%g: memref<16xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %z = arith.constant 1.0 : f32
    tile.fill %g, %z : memref<16xf32>, f32
  }
  return
}

// -----
func.func @fill_type_mismatch() {
  %z = arith.constant 1.0 : f16
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    tile.fill %f, %z : memref<16xf32, #tile.scope<fragment>>, f16
  }
  return
}

// -----
func.func @fill_vector_value(%v: vector<4xf32>, %f: memref<16xf32, #tile.scope<fragment>>) {
  "tile.fill"(%f, %v) : (memref<16xf32, #tile.scope<fragment>>, vector<4xf32>) -> ()
  return
}

// -----
func.func @fill_dynamic_buffer(%f: memref<?xf32, #tile.scope<fragment>>, %z: f32) {
  "tile.fill"(%f, %z) : (memref<?xf32, #tile.scope<fragment>>, f32) -> ()
  return
}

// -----
func.func @fill_one_operand(%f: memref<16xf32, #tile.scope<fragment>>) {
  "tile.fill"(%f) : (memref<16xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @clear_global(%g: memref<16xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.clear %g : memref<16xf32>
  }
  return
}

// -----
func.func @clear_integer_space(%g: memref<16xf32, 5>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.clear"(%g) : (memref<16xf32, 5>) -> ()
  }
  return
}

// -----
func.func @clear_tensor(%g: tensor<16xf32>) {
  "tile.clear"(%g) : (tensor<16xf32>) -> ()
  return
}

// -----
func.func @reduce_dim_out_of_range(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.reduce sum %s into %t dim = 2 : memref<16x16xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
// EXPECTED-ERROR: dim -1 is out of range
func.func @reduce_dim_negative(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.reduce sum %s into %t dim = -1 : memref<16x16xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @reduce_dim_int64_min(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.reduce sum %s into %t dim = -9223372036854775808 : memref<16x16xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @reduce_target_shape(%s: memref<16x8xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.reduce max %s into %t dim = 0 : memref<16x8xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @reduce_unknown_kind(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  tile.reduce prod %s into %t dim = 1 : memref<16x16xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  return
}

// -----
func.func @reduce_element_mismatch(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf16, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.reduce sum %s into %t dim = 1 : memref<16x16xf32, #tile.scope<fragment>> into memref<16xf16, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @reduce_index_elements(%s: memref<16x16xindex, #tile.scope<fragment>>, %t: memref<16xindex, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.reduce sum %s into %t dim = 1 : memref<16x16xindex, #tile.scope<fragment>> into memref<16xindex, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @reduce_global(%s: memref<16x16xf32>, %t: memref<16xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.reduce sum %s into %t dim = 1 : memref<16x16xf32> into memref<16xf32>
  }
  return
}

// -----
func.func @reduce_generic_missing_kind(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  "tile.reduce"(%s, %t) <{dim = 1 : i64}> : (memref<16x16xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @reduce_generic_kind_wrong_enum(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  "tile.reduce"(%s, %t) <{kind = #tile.policy<square>, dim = 1 : i64}> : (memref<16x16xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @reduce_generic_dim_i32(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  "tile.reduce"(%s, %t) <{kind = #tile.reduce<sum>, dim = 1 : i32}> : (memref<16x16xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @reduce_generic_dim_negative(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.reduce"(%s, %t) <{kind = #tile.reduce<sum>, dim = -2 : i64}> : (memref<16x16xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>) -> ()
  }
  return
}

// -----
func.func @reduce_generic_clear_int(%s: memref<16x16xf32, #tile.scope<fragment>>, %t: memref<16xf32, #tile.scope<fragment>>) {
  "tile.reduce"(%s, %t) <{kind = #tile.reduce<sum>, dim = 1 : i64, clear = 1 : i64}> : (memref<16x16xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>) -> ()
  return
}

// -----
func.func @reduce_generic_rank0(%s: memref<f32, #tile.scope<fragment>>, %t: memref<1xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.reduce"(%s, %t) <{kind = #tile.reduce<sum>, dim = 0 : i64}> : (memref<f32, #tile.scope<fragment>>, memref<1xf32, #tile.scope<fragment>>) -> ()
  }
  return
}
