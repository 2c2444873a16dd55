// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @global_buffer(%g: memref<16x16xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.clear' op buffer must be a shared or fragment or local buffer (memory space #tile.scope<...>), got a global memref 'memref<16x16xf32>'}}
    tile.clear %g : memref<16x16xf32>
  }
  return
}

// -----

func.func @foreign_buffer(%g: memref<16xi32, #gpu.address_space<private>>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.clear' op buffer must be a shared or fragment or local buffer (memory space #tile.scope<...>), got a foreign memref 'memref<16xi32, #gpu.address_space<private>>'}}
    tile.clear %g : memref<16xi32, #gpu.address_space<private>>
  }
  return
}

// -----

func.func @dynamic_buffer(%m: memref<?x8xf32, #tile.scope<fragment>>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.clear' op operand #0 must be statically shaped memref of any type values, but got 'memref<?x8xf32, #tile.scope<fragment>>'}}
    tile.clear %m : memref<?x8xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @not_a_memref(%t: tensor<16xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{invalid kind of type specified: expected builtin.memref, but found 'tensor<16xf32>'}}
    tile.clear %t : tensor<16xf32>
  }
  return
}
