// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Integers in tile ops are signless, as in arith (TileLang's uint8 is i8):
// every tile op checks the integer types of its operands and results,
// memref element types included.

func.func @alloc_ui8() {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_shared' op result #0 has element type 'ui8'; tile ops take signless integers (i8): as in arith, signedness belongs to the operations, not to the data}}
    %a = tile.alloc_shared : memref<64xui8, #tile.scope<shared>>
  }
  return
}

// -----

func.func @copy_ui8(%a: memref<64xui8>, %b: memref<64xui8>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.copy' op operand #0 has element type 'ui8'; tile ops take signless integers (i8)}}
    tile.copy %a[0] [64] to %b[0] [64] : memref<64xui8> to memref<64xui8>
  }
  return
}

// -----

func.func @copy_to_si32(%a: memref<64xi32>, %b: memref<64xsi32>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.copy' op operand #1 has element type 'si32'; tile ops take signless integers (i32)}}
    tile.copy %a[0] [64] to %b[0] [64] : memref<64xi32> to memref<64xsi32>
  }
  return
}

// -----

func.func @atomic_ui32(%a: memref<64xui32>, %v: ui32) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.atomic_add' op operand #0 has element type 'ui32'}}
    tile.atomic_add %a[0], %v : memref<64xui32>, ui32
  }
  return
}

// -----

func.func @fill_si8(%v: si8) {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_fragment : memref<128xi8, #tile.scope<fragment>>
    // expected-error @below {{'tile.fill' op operand #1 has type 'si8'; tile ops take signless integers (i8)}}
    tile.fill %a, %v : memref<128xi8, #tile.scope<fragment>>, si8
  }
  return
}
