// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Constant indices and regions of loads, stores and atomics of on-chip
// buffers must lie inside them (the tile.kernel verifier; tile.copy checks
// its own regions); accesses of global tensors are guarded instead.

func.func @shared_store_past_end(%x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64x32xf32, #tile.scope<shared>>
    %c200 = arith.constant 200 : index
    %c0 = arith.constant 0 : index
    // expected-error @below {{'memref.store' op store index 200 is outside dimension 0 of the shared buffer 'memref<64x32xf32, #tile.scope<shared>>' (size 64)}}
    // expected-note @below {{indices of shared buffers must lie in [0, 64)}}
    memref.store %x, %s[%c200, %c0] : memref<64x32xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @fragment_negative_load() {
  tile.kernel (%bx) in (1) threads(128) {
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m1 = arith.constant -1 : index
    %c0 = arith.constant 0 : index
    // expected-error @below {{'memref.load' op load index -1 is outside dimension 0 of the fragment buffer}}
    // expected-note @below {{indices of fragment buffers must lie in [0, 64)}}
    %v = memref.load %f[%m1, %c0] : memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @local_rmw_past_end(%x: i32) {
  tile.kernel (%bx) in (1) threads(128) {
    %l = tile.alloc_local : memref<4xi32, #tile.scope<local>>
    %c4 = arith.constant 4 : index
    // expected-error @below {{'memref.atomic_rmw' op atomic index 4 is outside dimension 0 of the local buffer}}
    // expected-note @below {{must lie in [0, 4)}}
    %old = memref.atomic_rmw addi %x, %l[%c4] : (i32, memref<4xi32, #tile.scope<local>>) -> i32
  }
  return
}

// -----

func.func @atomic_tile_into_shared_past_end() {
  tile.kernel (%bx) in (1) threads(128) {
    %acc = tile.alloc_shared : memref<128x128xf32, #tile.scope<shared>>
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.atomic_add' op target region [96, 160) is outside dimension 0 of the shared buffer}}
    // expected-note @below {{must lie in [0, 128)}}
    tile.atomic_add %acc[96, 0], %f : memref<128x128xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @atomic_region_into_shared_past_end(%x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    %acc = tile.alloc_shared : memref<32x32xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.atomic_max' op target region [16, 48) is outside dimension 1 of the shared buffer}}
    // expected-note @below {{must lie in [0, 32)}}
    tile.atomic_max %acc[0, 16] sizes [32, 32], %x : memref<32x32xf32, #tile.scope<shared>>, f32
  }
  return
}

// -----

func.func @atomic_scalar_into_shared_negative(%x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    %acc = tile.alloc_shared : memref<32xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.atomic_min' op target index -3 is outside dimension 0 of the shared buffer}}
    // expected-note @below {{must lie in [0, 32)}}
    tile.atomic_min %acc[-3], %x : memref<32xf32, #tile.scope<shared>>, f32
  }
  return
}
