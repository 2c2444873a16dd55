// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @fragment_layout_on_shared() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.annotate_layout' op a buffer with a #tile.fragment layout must be a fragment buffer (memory space #tile.scope<...>), got a shared memref 'memref<64xf32, #tile.scope<shared>>'}}
    tile.annotate_layout %s layout(#tile.fragment<[64], threads = 64, (d0) -> (d0, 0)>) : memref<64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @fragment_layout_on_local() {
  tile.kernel (%bx) in (1) threads(128) {
    %l = tile.alloc_local : memref<4xf32, #tile.scope<local>>
    // expected-error @below {{'tile.annotate_layout' op a buffer with a #tile.fragment layout must be a fragment buffer (memory space #tile.scope<...>), got a local memref 'memref<4xf32, #tile.scope<local>>'}}
    tile.annotate_layout %l layout(#tile.fragment<[4], threads = 4, (d0) -> (d0, 0)>) : memref<4xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @fragment_shape() {
  tile.kernel (%bx) in (1) threads(128) {
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.annotate_layout' op fragment layout shape [16, 8] must equal the buffer shape [16, 16]}}
    tile.annotate_layout %c layout(#tile.fragment<[16, 8], threads = 32, (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (d1 mod 2) + (d0 floordiv 8) * 2)>) : memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @fragment_rank() {
  tile.kernel (%bx) in (1) threads(128) {
    %c = tile.alloc_fragment : memref<1x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.annotate_layout' op fragment layout shape [64] must equal the buffer shape [1, 64]}}
    tile.annotate_layout %c layout(#tile.fragment<[64], threads = 64, (d0) -> (d0, 0)>) : memref<1x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @swizzle_on_fragment() {
  tile.kernel (%bx) in (1) threads(128) {
    %c = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.annotate_layout' op a buffer with a #tile.swizzle layout must be a shared buffer (memory space #tile.scope<...>), got a fragment memref 'memref<64x64xf16, #tile.scope<fragment>>'}}
    tile.annotate_layout %c layout(#tile.swizzle<3, 4, 3>) : memref<64x64xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @swizzle_on_global(%g: memref<64x64xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.annotate_layout' op a buffer with a #tile.swizzle layout must be a shared buffer (memory space #tile.scope<...>), got a global memref 'memref<64x64xf16>'}}
    tile.annotate_layout %g layout(#tile.swizzle<3, 4, 3>) : memref<64x64xf16>
  }
  return
}

// -----

func.func @not_a_layout() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.annotate_layout' op attribute 'layout' failed to satisfy constraint: Distribution of a register tile over the threads of a block or XOR swizzle of a shared-memory buffer}}
    tile.annotate_layout %s layout(#tile.scope<shared>) : memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @dynamic_buffer(%s: memref<?x64xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.annotate_layout' op operand #0 must be statically shaped memref of any type values, but got 'memref<?x64xf16, #tile.scope<shared>>'}}
    tile.annotate_layout %s layout(#tile.swizzle<3, 4, 3>) : memref<?x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @invalid_layout_attr() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    // expected-error @below {{swizzle shift (1) must be at least bits (3) so that the XOR source and target bits do not overlap}}
    tile.annotate_layout %s layout(#tile.swizzle<3, 4, 1>) : memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @tensor_layout_on_shared() {
  tile.kernel (%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<16x8xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.annotate_layout' op a #tile.layout places the elements of a contiguous global tensor; the buffer is 'memref<16x8xf32, #tile.scope<shared>>'}}
    tile.annotate_layout %s layout(#tile.layout<[16, 8] -> [8, 16], (d0, d1) -> (d1, d0)>) : memref<16x8xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @tensor_layout_shape(%t: memref<16x4xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.annotate_layout' op tensor layout shape [16, 8] must equal the tensor's shape [16, 4]}}
    tile.annotate_layout %t layout(#tile.layout<[16, 8] -> [8, 16], (d0, d1) -> (d1, d0)>) : memref<16x4xf32>
  }
  return
}

// -----

func.func @tensor_layout_strided(%t: memref<16x8xf32, strided<[16, 1]>>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.annotate_layout' op a #tile.layout places the elements of a contiguous global tensor}}
    tile.annotate_layout %t layout(#tile.layout<[16, 8] -> [8, 16], (d0, d1) -> (d1, d0)>) : memref<16x8xf32, strided<[16, 1]>>
  }
  return
}
