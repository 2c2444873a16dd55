// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @sizes_missing(%p: i64, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.make_tensor' op has 1 sizes for the 2 dynamic dimensions of 'memref<?x?xf16>'}}
    %a = tile.make_tensor %p(%m) : memref<?x?xf16>
  }
  return
}

// -----

func.func @shared(%p: i64) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.make_tensor' op makes a global tensor (no memory space), got 'memref<16xf16, #tile.scope<shared>>'}}
    %a = tile.make_tensor %p : memref<16xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @strided(%p: i64) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.make_tensor' op makes a row-major tensor, got 'memref<16x16xf16, strided<[32, 1]>>'}}
    %a = tile.make_tensor %p : memref<16x16xf16, strided<[32, 1]>>
  }
  return
}

// -----

func.func @outside_kernel(%p: i64) {
  // expected-error @below {{'tile.make_tensor' op}}
  %a = tile.make_tensor %p : memref<16xf16>
  return
}
