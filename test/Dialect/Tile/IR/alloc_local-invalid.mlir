// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @wrong_scope() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op result must be in memory space #tile.scope<local>, got 'memref<16xf32, #tile.scope<shared>>'}}
    %a = tile.alloc_local : memref<16xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @global() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op result must be in memory space #tile.scope<local>, got 'memref<16xf32>'}}
    %a = tile.alloc_local : memref<16xf32>
  }
  return
}

// -----

func.func @foreign_memory_space() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op result must be in memory space #tile.scope<local>, got 'memref<16xf32, 3>'}}
    %a = tile.alloc_local : memref<16xf32, 3>
  }
  return
}

// -----

func.func @rank_0() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op needs a buffer of rank >= 1 (use shape [1] for a scalar)}}
    %a = tile.alloc_local : memref<f32, #tile.scope<local>>
  }
  return
}

// -----

func.func @strided_layout() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op buffer must have the identity layout; swizzles are set with tile.annotate_layout}}
    %a = tile.alloc_local : memref<16x16xf16, strided<[32, 1]>, #tile.scope<local>>
  }
  return
}

// -----

func.func @affine_layout() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op buffer must have the identity layout; swizzles are set with tile.annotate_layout}}
    %a = tile.alloc_local : memref<16x16xf16, affine_map<(d0, d1) -> (d1, d0)>, #tile.scope<local>>
  }
  return
}

// -----

func.func @vector_elements() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op buffer must have an integer or float element type, got 'vector<4xf32>'}}
    %a = tile.alloc_local : memref<16xvector<4xf32>, #tile.scope<local>>
  }
  return
}

// -----

func.func @complex_elements() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op buffer must have an integer or float element type, got 'complex<f32>'}}
    %a = tile.alloc_local : memref<16xcomplex<f32>, #tile.scope<local>>
  }
  return
}

// -----

func.func @outside_kernel() {
  // expected-error @below {{'tile.alloc_local' op must be inside a tile.kernel: tile ops and buffers belong to the blocks of a kernel}}
  %a = tile.alloc_local : memref<16xf32, #tile.scope<local>>
  return
}

// -----

func.func @dynamic_shape() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op result #0 must be statically shaped memref of any type values, but got 'memref<?xf32, #tile.scope<local>>'}}
    %a = tile.alloc_local : memref<?xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @not_a_memref() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{custom op 'tile.alloc_local' invalid kind of type specified: expected builtin.memref, but found 'tensor<16xf32>'}}
    %a = tile.alloc_local : tensor<16xf32>
  }
  return
}

// -----

func.func @empty_dimension() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_local' op needs a buffer of at least one element in every dimension, got 'memref<4x0xf32, #tile.scope<local>>'}}
    %a = tile.alloc_local : memref<4x0xf32, #tile.scope<local>>
  }
  return
}
