// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Errors of the custom syntax of tile.copy: what the short forms cannot
// infer, and bad attributes in its attribute dictionary.

func.func @dynamic_whole_buffer(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{a dynamically shaped buffer needs explicit offsets}}
    tile.copy %A to %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @dynamic_whole_target(%C: memref<64x?xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %Cs = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{a dynamically shaped buffer needs explicit offsets}}
    tile.copy %Cs to %C : memref<64x32xf16, #tile.scope<shared>> to memref<64x?xf16>
  }
  return
}

// -----

// Neither side gives sizes.
func.func @no_sizes_anywhere(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{cannot infer the region sizes of this side: give them as `[offsets] [sizes]`}}
    tile.copy %A[%m, 0] to %As[0, 0] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

// Sizes are only taken from a side of the same rank.
func.func @rank_differs(%Q: memref<?x?x?x128xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Qs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    // expected-error @below {{cannot infer the region sizes of this side: give them as `[offsets] [sizes]`}}
    tile.copy %Q[0, %m, 0, 0] to %Qs : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @target_rank_differs(%Q: memref<?x?x?x128xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Qs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    // expected-error @below {{cannot infer the region sizes of this side: give them as `[offsets] [sizes]`}}
    tile.copy %Qs to %Q[0, %m, 0, 0] : memref<64x128xf16, #tile.scope<shared>> to memref<?x?x?x128xf16>
  }
  return
}

// -----

func.func @not_memrefs(%t: tensor<128x32xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{expected memref types, got 'tensor<128x32xf16>' and 'memref<128x32xf16, #tile.scope<shared>>'}}
    tile.copy %t to %As : tensor<128x32xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @missing_to(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{expected 'to'}}
    tile.copy %A[%m, 0] into %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @non_integer_size(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{expected integer value}}
    tile.copy %A[%m, 0] [%m, 32] to %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

// An inherent attribute of the wrong kind in the attribute dictionary is an
// error, not silently dropped.
func.func @bad_inst_attr(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op attribute 'inst' failed to satisfy constraint: Instruction hint of a tile.copy}}
    tile.copy %A[%m, 0] to %As {inst = 2 : i32} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @bad_sizes_attr(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op attribute 'source_sizes' failed to satisfy constraint: i64 dense array attribute}}
    tile.copy %A[%m, 0] to %As {source_sizes = [128, 32]} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}
