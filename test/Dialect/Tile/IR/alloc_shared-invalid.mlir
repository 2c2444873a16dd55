// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @wrong_scope() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op result must be in memory space #tile.scope<shared>, got 'memref<16xf32, #tile.scope<fragment>>'}}
    %a = tile.alloc_shared : memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @global() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op result must be in memory space #tile.scope<shared>, got 'memref<16xf32>'}}
    %a = tile.alloc_shared : memref<16xf32>
  }
  return
}

// -----

func.func @foreign_memory_space() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op result must be in memory space #tile.scope<shared>, got 'memref<16xf32, 3>'}}
    %a = tile.alloc_shared : memref<16xf32, 3>
  }
  return
}

// -----

func.func @rank_0() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op needs a buffer of rank >= 1 (use shape [1] for a scalar)}}
    %a = tile.alloc_shared : memref<f32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @strided_layout() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op buffer must have the identity layout; swizzles are set with tile.annotate_layout}}
    %a = tile.alloc_shared : memref<16x16xf16, strided<[32, 1]>, #tile.scope<shared>>
  }
  return
}

// -----

func.func @affine_layout() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op buffer must have the identity layout; swizzles are set with tile.annotate_layout}}
    %a = tile.alloc_shared : memref<16x16xf16, affine_map<(d0, d1) -> (d1, d0)>, #tile.scope<shared>>
  }
  return
}

// -----

func.func @vector_elements() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op buffer must have an integer or float element type, got 'vector<4xf32>'}}
    %a = tile.alloc_shared : memref<16xvector<4xf32>, #tile.scope<shared>>
  }
  return
}

// -----

func.func @complex_elements() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op buffer must have an integer or float element type, got 'complex<f32>'}}
    %a = tile.alloc_shared : memref<16xcomplex<f32>, #tile.scope<shared>>
  }
  return
}

// -----

func.func @outside_kernel() {
  // expected-error @below {{'tile.alloc_shared' op must be inside a tile.kernel: tile ops and buffers belong to the blocks of a kernel}}
  %a = tile.alloc_shared : memref<16xf32, #tile.scope<shared>>
  return
}

// -----

func.func @dynamic_shape() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op result #0 must be statically shaped memref of any type values, but got 'memref<?xf32, #tile.scope<shared>>'}}
    %a = tile.alloc_shared : memref<?xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @not_a_memref() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{custom op 'tile.alloc_shared' invalid kind of type specified: expected builtin.memref, but found 'tensor<16xf32>'}}
    %a = tile.alloc_shared : tensor<16xf32>
  }
  return
}

// -----

func.func @unaligned_offset() {
  tile.kernel (%bx) in (1) threads(128) attributes {planned_shared_bytes = 4096 : i64} {
    // expected-error @below {{'tile.alloc_shared' op has offset 64; shared buffers are placed at non-negative multiples of 128 bytes}}
    %a = tile.alloc_shared {offset = 64 : i64} : memref<16xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @negative_offset() {
  tile.kernel (%bx) in (1) threads(128) attributes {planned_shared_bytes = 4096 : i64} {
    // expected-error @below {{'tile.alloc_shared' op has offset -128; shared buffers are placed at non-negative multiples of 128 bytes}}
    %a = tile.alloc_shared {offset = -128 : i64} : memref<16xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @offset_without_plan() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op has a shared-memory offset, but its kernel has no planned_shared_bytes (tile-plan-shared writes both)}}
    %a = tile.alloc_shared {offset = 0 : i64} : memref<16xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @plan_without_offset() {
  tile.kernel (%bx) in (1) threads(128) attributes {planned_shared_bytes = 4096 : i64} {
    %a = tile.alloc_shared {offset = 0 : i64} : memref<16xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.alloc_shared' op has no shared-memory offset in a kernel whose shared buffers are planned (tile-plan-shared gives every one an offset)}}
    %b = tile.alloc_shared : memref<16xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @outside_plan() {
  tile.kernel (%bx) in (1) threads(128) attributes {planned_shared_bytes = 4096 : i64} {
    // expected-error @below {{'tile.alloc_shared' op of 4096 bytes at offset 128 ends outside the kernel's planned 4096 bytes of shared memory}}
    %a = tile.alloc_shared {offset = 128 : i64} : memref<1024xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @negative_plan() {
  // expected-error @below {{'tile.kernel' op has planned_shared_bytes -1; it must be >= 0}}
  tile.kernel (%bx) in (1) threads(128) attributes {planned_shared_bytes = -1 : i64} {
  }
  return
}

// -----

func.func @empty_dimension() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op needs a buffer of at least one element in every dimension, got 'memref<4x0xf32, #tile.scope<shared>>'}}
    %a = tile.alloc_shared : memref<4x0xf32, #tile.scope<shared>>
  }
  return
}
