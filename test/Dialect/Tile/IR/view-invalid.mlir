// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @bytes_differ() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.view' op views the 16384 bytes of 'memref<64x64xf32, #tile.scope<shared>>' as the 8192 bytes of 'memref<64x64xf16, #tile.scope<shared>>': both must hold the same bytes}}
    %b = tile.view %a : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @fragment() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.view' op source must be a shared buffer (memory space #tile.scope<...>), got a fragment memref 'memref<64x64xf32, #tile.scope<fragment>>'}}
    %b = tile.view %a : memref<64x64xf32, #tile.scope<fragment>> to memref<64x128xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @to_global(%g: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.view' op result must be a shared buffer (memory space #tile.scope<...>), got a global memref 'memref<64x128xf16>'}}
    %b = tile.view %a : memref<64x64xf32, #tile.scope<shared>> to memref<64x128xf16>
  }
  return
}

// -----

func.func @sub_byte() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64xi8, #tile.scope<shared>>
    // expected-error @below {{'tile.view' op result elements must be integers or floats of whole bytes (or float4_e2m1fn rows of an even length), got 'i4'}}
    %b = tile.view %a : memref<64xi8, #tile.scope<shared>> to memref<128xi4, #tile.scope<shared>>
  }
  return
}

// -----

func.func @strided() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.view' op result must be a row-major buffer}}
    %b = tile.view %a : memref<64xf32, #tile.scope<shared>> to memref<8x8xf32, strided<[1, 8]>, #tile.scope<shared>>
  }
  return
}

// -----

func.func @not_an_allocation(%m: memref<64xf32, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.view' op views a tile.alloc_shared buffer or a view of one}}
    %b = tile.view %m : memref<64xf32, #tile.scope<shared>> to memref<64xi32, #tile.scope<shared>>
  }
  return
}

// -----

// float4_e2m1fn elements go two a byte: a row of odd length would split one.
func.func @fp4_odd_rows() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<4x3xf4E2M1FN, #tile.scope<shared>>
    // expected-error @below {{'tile.view' op source elements must be integers or floats of whole bytes (or float4_e2m1fn rows of an even length), got 'f4E2M1FN'}}
    %b = tile.view %a : memref<4x3xf4E2M1FN, #tile.scope<shared>> to memref<6xi8, #tile.scope<shared>>
  }
  return
}
