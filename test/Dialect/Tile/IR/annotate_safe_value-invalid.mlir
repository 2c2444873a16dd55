// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @shared_buffer() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    %z = arith.constant 0.0 : f32
    // expected-error @below {{'tile.annotate_safe_value' op annotates a global tensor, got shared 'memref<64xf32, #tile.scope<shared>>'}}
    tile.annotate_safe_value %s, %z : memref<64xf32, #tile.scope<shared>>, f32
  }
  return
}

// -----

func.func @wrong_type(%A: memref<?xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %one = arith.constant 1.0 : f32
    // expected-error @below {{'tile.annotate_safe_value' op value of type 'f32' must be of the tensor's element type 'f16'}}
    tile.annotate_safe_value %A, %one : memref<?xf16>, f32
  }
  return
}

// -----

func.func @not_constant(%A: memref<?xf32>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.annotate_safe_value' op value must be a constant}}
    tile.annotate_safe_value %A, %x : memref<?xf32>, f32
  }
  return
}

// -----

func.func @outside_kernel(%A: memref<?xf32>) {
  %one = arith.constant 1.0 : f32
  // expected-error @below {{'tile.annotate_safe_value' op must be inside a tile.kernel}}
  tile.annotate_safe_value %A, %one : memref<?xf32>, f32
  return
}
