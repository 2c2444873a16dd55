// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @fragment_target(%x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.atomic_add' op target must be global or shared memory, got fragment 'memref<64xf32, #tile.scope<fragment>>'}}
    tile.atomic_add %f[0], %x : memref<64xf32, #tile.scope<fragment>>, f32
  }
  return
}

// -----

func.func @local_target(%x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    %l = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    // expected-error @below {{'tile.atomic_add' op target must be global or shared memory, got local 'memref<1xf32, #tile.scope<local>>'}}
    tile.atomic_add %l[0], %x : memref<1xf32, #tile.scope<local>>, f32
  }
  return
}

// -----

func.func @foreign_target(%out: memref<64xf32, 1>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op target must be global or shared memory, got foreign 'memref<64xf32, 1>'}}
    tile.atomic_add %out[0], %x : memref<64xf32, 1>, f32
  }
  return
}

// -----

func.func @too_few_offsets(%out: memref<?x?xf32>, %i: index, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{expected 2 offsets values, got 1}}
    tile.atomic_add %out[%i], %x : memref<?x?xf32>, f32
  }
  return
}

// -----

// Generic form: one dynamic entry in static_offsets without its operand.
func.func @dynamic_offsets(%out: memref<?xf32>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{expected 1 dynamic offsets values}}
    "tile.atomic_add"(%out, %x) <{static_offsets = array<i64: -9223372036854775808>}> : (memref<?xf32>, f32) -> ()
  }
  return
}

// -----

func.func @i16_target(%out: memref<?xi16>, %i: index, %x: i16) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op supports float, i32 and i64 targets, got 'i16'}}
    tile.atomic_add %out[%i], %x : memref<?xi16>, i16
  }
  return
}

// -----

func.func @index_target(%out: memref<?xindex>, %i: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op supports float, i32 and i64 targets, got 'index'}}
    tile.atomic_add %out[%i], %i : memref<?xindex>, index
  }
  return
}

// -----

func.func @scalar_type(%out: memref<?xf32>, %i: index, %x: f16) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op value must be a 'f32' scalar or a tile buffer, got 'f16'}}
    tile.atomic_add %out[%i], %x : memref<?xf32>, f16
  }
  return
}

// -----

func.func @vector_value(%out: memref<?xf32>, %i: index, %x: vector<4xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op value must be a 'f32' scalar or a tile buffer, got 'vector<4xf32>'}}
    tile.atomic_add %out[%i], %x : memref<?xf32>, vector<4xf32>
  }
  return
}

// -----

func.func @dynamic_tile(%out: memref<?x?xf32>, %v: memref<?x64xf32, #tile.scope<shared>>, %i: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op value tile must be a statically shaped tile buffer, got 'memref<?x64xf32, #tile.scope<shared>>'}}
    tile.atomic_add %out[%i, 0], %v : memref<?x?xf32>, memref<?x64xf32, #tile.scope<shared>>
  }
  return
}

// -----

// The value tile must be a tile buffer, not global memory (reported once).
func.func @global_tile(%out: memref<?x?xf32>, %v: memref<64x64xf32>, %i: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op value tile must be a shared or fragment or local buffer (memory space #tile.scope<...>), got a global memref 'memref<64x64xf32>'}}
    tile.atomic_add %out[%i, 0], %v : memref<?x?xf32>, memref<64x64xf32>
  }
  return
}

// -----

func.func @tile_rank(%out: memref<?x?xf32>, %i: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.atomic_add' op value tile rank (1) must equal the target rank (2)}}
    tile.atomic_add %out[%i, 0], %f : memref<?x?xf32>, memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @tile_element_type(%out: memref<?x?xf32>, %i: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %f = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.atomic_add' op value tile element type 'f16' must be the target's 'f32'}}
    tile.atomic_add %out[%i, 0], %f : memref<?x?xf32>, memref<64x64xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @sizes_with_tile(%out: memref<?x?xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.atomic_add' op takes sizes only with a scalar value (a tile value gives the region's shape)}}
    tile.atomic_add %out[0, 0] sizes [64, 64], %f : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @sizes_rank(%out: memref<?x?xf32>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op expected 2 sizes (one per target dimension), got 1}}
    tile.atomic_add %out[0, 0] sizes [64], %x : memref<?x?xf32>, f32
  }
  return
}

// -----

func.func @sizes_positive(%out: memref<?x?xf32>, %x: f32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op sizes must be positive}}
    tile.atomic_add %out[0, 0] sizes [64, 0], %x : memref<?x?xf32>, f32
  }
  return
}
