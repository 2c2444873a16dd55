// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @global_buffer(%g: memref<16xf32>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.fill' op buffer must be a shared or fragment or local buffer (memory space #tile.scope<...>), got a global memref 'memref<16xf32>'}}
    tile.fill %g, %x : memref<16xf32>, f32
  }
  return
}

// -----

func.func @foreign_buffer(%g: memref<16xf32, 5>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.fill' op buffer must be a shared or fragment or local buffer (memory space #tile.scope<...>), got a foreign memref 'memref<16xf32, 5>'}}
    tile.fill %g, %x : memref<16xf32, 5>, f32
  }
  return
}

// -----

func.func @value_type(%x: f16) {
  tile.kernel (%bx) in (1) threads(128) {
    %m = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.fill' op value type 'f16' must be the buffer's element type 'f32'}}
    tile.fill %m, %x : memref<128xf32, #tile.scope<fragment>>, f16
  }
  return
}

// -----

func.func @value_signedness(%x: i32) {
  tile.kernel (%bx) in (1) threads(128) {
    %m = tile.alloc_local : memref<4xi64, #tile.scope<local>>
    // expected-error @below {{'tile.fill' op value type 'i32' must be the buffer's element type 'i64'}}
    tile.fill %m, %x : memref<4xi64, #tile.scope<local>>, i32
  }
  return
}

// -----

func.func @vector_value(%x: vector<4xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %m = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.fill' op operand #1 must be integer or index or floating-point, but got 'vector<4xf32>'}}
    tile.fill %m, %x : memref<128xf32, #tile.scope<fragment>>, vector<4xf32>
  }
  return
}

// -----

func.func @dynamic_buffer(%m: memref<?xf32, #tile.scope<shared>>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.fill' op operand #0 must be statically shaped memref of any type values, but got 'memref<?xf32, #tile.scope<shared>>'}}
    tile.fill %m, %x : memref<?xf32, #tile.scope<shared>>, f32
  }
  return
}
