// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @not_local() {
  tile.kernel (%bx) in (1) threads(128) {
    %f = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // expected-error @below {{reducer must be a local or fragment buffer}}
    tile.finalize_reducer sum %f : memref<64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @abs_kind() {
  tile.kernel (%bx) in (1) threads(128) {
    %r = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    // expected-error @below {{combines by sum, max or min, got absmax}}
    tile.finalize_reducer absmax %r : memref<64xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @seed_type(%s: f16) {
  tile.kernel (%bx) in (1) threads(128) {
    %r = tile.alloc_local : memref<64xf32, #tile.scope<local>>
    // expected-error @below {{seed must have the reducer's element type 'f32', got 'f16'}}
    tile.finalize_reducer sum %r seed %s : memref<64xf32, #tile.scope<local>>, f16
  }
  return
}

// -----

func.func @index_elements() {
  tile.kernel (%bx) in (1) threads(128) {
    %r = tile.alloc_local : memref<4xindex, #tile.scope<local>>
    // expected-error @below {{reduces integer or float buffers, got 'index'}}
    tile.finalize_reducer sum %r : memref<4xindex, #tile.scope<local>>
  }
  return
}

// -----

func.func @outside_kernel() {
  %r = memref.alloca() : memref<4xf32, #tile.scope<local>>
  // expected-error @below {{must be inside a tile.kernel}}
  tile.finalize_reducer sum %r : memref<4xf32, #tile.scope<local>>
  return
}
