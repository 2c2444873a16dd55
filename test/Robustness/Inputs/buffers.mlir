// Broken tile.alloc_* and tile.atomic_* ops, custom and generic form.
func.func @alloc_outside_kernel() {
  %s = tile.alloc_shared : memref<16xf16, #tile.scope<shared>>
  return
}

// -----
func.func @alloc_wrong_scope() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16xf16, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @alloc_global() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_local : memref<16xf16>
  }
  return
}

// -----
func.func @alloc_dynamic() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_fragment : memref<?xf16, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @alloc_rank0() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_local : memref<f32, #tile.scope<local>>
  }
  return
}

// -----
func.func @alloc_strided() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16x16xf16, strided<[1, 16]>, #tile.scope<shared>>
  }
  return
}

// -----
func.func @alloc_vector_elements() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16xvector<4xf16>, #tile.scope<shared>>
  }
  return
}

// -----
func.func @alloc_complex_elements() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : memref<16xcomplex<f32>, #tile.scope<shared>>
  }
  return
}

// -----
func.func @alloc_tensor() {
  tile.kernel (%bx) in (4) threads(128) {
    %s = tile.alloc_shared : tensor<16xf16>
  }
  return
}

// -----
func.func @alloc_generic_operand(%n: index) {
  tile.kernel (%bx) in (4) threads(128) {
    %s = "tile.alloc_shared"(%n) : (index) -> memref<16xf16, #tile.scope<shared>>
  }
  return
}

// -----
func.func @alloc_generic_no_result() {
  tile.kernel (%bx) in (4) threads(128) {
    "tile.alloc_shared"() : () -> ()
  }
  return
}

// -----
func.func @alloc_generic_two_results() {
  tile.kernel (%bx) in (4) threads(128) {
    %s:2 = "tile.alloc_shared"() : () -> (memref<16xf16, #tile.scope<shared>>, memref<16xf16, #tile.scope<shared>>)
  }
  return
}

// -----
func.func @alloc_fragment_in_shared() {
  tile.kernel (%bx) in (4) threads(128) {
    %u = tile.alloc_fragment : memref<16x16xf32, #tile.scope<shared>>
  }
  return
}

// -----
func.func @atomic_fragment_target(%v: f32) {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    tile.atomic_add %f[0], %v : memref<16xf32, #tile.scope<fragment>>, f32
  }
  return
}

// -----
func.func @atomic_offsets_count(%g: memref<?x?xf32>, %v: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.atomic_add %g[0], %v : memref<?x?xf32>, f32
  }
  return
}

// -----
func.func @atomic_i8(%g: memref<?xi8>, %v: i8) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.atomic_max %g[0], %v : memref<?xi8>, i8
  }
  return
}

// -----
func.func @atomic_value_type(%g: memref<?xf32>, %v: f16) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.atomic_min %g[0], %v : memref<?xf32>, f16
  }
  return
}

// -----
func.func @atomic_tile_rank(%g: memref<?x?xf32>) {
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    tile.atomic_add %g[0, 0], %f : memref<?x?xf32>, memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @atomic_tile_global(%g: memref<?x?xf32>, %h: memref<16x16xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.atomic_add %g[0, 0], %h : memref<?x?xf32>, memref<16x16xf32>
  }
  return
}

// -----
func.func @atomic_tile_dynamic(%g: memref<?x?xf32>, %h: memref<?x16xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.atomic_add %g[0, 0], %h : memref<?x?xf32>, memref<?x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @atomic_tile_element(%g: memref<?x?xf32>, %h: memref<16x16xf16, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.atomic_add %g[0, 0], %h : memref<?x?xf32>, memref<16x16xf16, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @atomic_generic_kdynamic(%g: memref<?x?xf32>, %v: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.atomic_add"(%g, %v) <{static_offsets = array<i64: -9223372036854775808, 0>}> : (memref<?x?xf32>, f32) -> ()
  }
  return
}

// -----
func.func @atomic_generic_missing_offsets(%g: memref<?x?xf32>, %v: f32) {
  "tile.atomic_add"(%g, %v) : (memref<?x?xf32>, f32) -> ()
  return
}

// -----
func.func @atomic_generic_offset_f32(%g: memref<?xf32>, %v: f32) {
  "tile.atomic_add"(%g, %v, %v) <{static_offsets = array<i64: -9223372036854775808>}> : (memref<?xf32>, f32, f32) -> ()
  return
}

// -----
func.func @atomic_generic_one_operand(%g: memref<?xf32>) {
  "tile.atomic_max"(%g) <{static_offsets = array<i64: 0>}> : (memref<?xf32>) -> ()
  return
}

// -----
func.func @atomic_generic_unranked(%g: memref<*xf32>, %v: f32) {
  "tile.atomic_min"(%g, %v) <{static_offsets = array<i64>}> : (memref<*xf32>, f32) -> ()
  return
}

// -----
func.func @atomic_generic_index_target(%g: memref<?xindex>, %v: index) {
  tile.kernel (%bx) in (1) threads(128) {
    "tile.atomic_min"(%g, %v) <{static_offsets = array<i64: 0>}> : (memref<?xindex>, index) -> ()
  }
  return
}
