// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @source_element_type(%A: memref<?x?xvector<4xf16>>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op source must have an integer or float element type, got 'vector<4xf16>'}}
    tile.copy %A[%m, 0] [128, 32] to %As : memref<?x?xvector<4xf16>> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @target_element_type(%A: memref<?x?xf16>, %C: memref<?x?xcomplex<f32>>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op target must have an integer or float element type, got 'complex<f32>'}}
    tile.copy %As to %C[%m, 0] : memref<128x32xf16, #tile.scope<shared>> to memref<?x?xcomplex<f32>>
  }
  return
}

// -----

func.func @foreign_memory_space(%A: memref<128x32xf16, 3>) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op expects global memrefs or tile buffers, got memory space 3 : i64}}
    tile.copy %A to %As : memref<128x32xf16, 3> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @foreign_memory_space_target(%A: memref<128x32xf16, #gpu.address_space<workgroup>>) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op expects global memrefs or tile buffers, got memory space #gpu.address_space<workgroup>}}
    tile.copy %As to %A : memref<128x32xf16, #tile.scope<shared>> to memref<128x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @too_few_source_offsets(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{expected 2 source offsets values, got 1}}
    tile.copy %A[%m] to %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @too_many_target_offsets(%C: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Cs = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{expected 2 target offsets values, got 3}}
    tile.copy %Cs to %C[%m, 0, 0] [128, 32] : memref<128x32xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

// -----

// Generic form: static_source_offsets has two dynamic entries but only one
// offset operand is given.
func.func @dynamic_offset_operands(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{expected 2 dynamic source offsets values}}
    "tile.copy"(%A, %m, %As) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>, source_sizes = array<i64: 128, 32>, static_source_offsets = array<i64: -9223372036854775808, -9223372036854775808>, static_target_offsets = array<i64: 0, 0>, target_sizes = array<i64: 128, 32>}> : (memref<?x?xf16>, index, memref<128x32xf16, #tile.scope<shared>>) -> ()
  }
  return
}

// -----

func.func @source_sizes_rank(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op expected 2 source sizes (the rank of 'memref<?x?xf16>'), got 0}}
    tile.copy %A[%m, 0] [] to %As : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @target_sizes_rank(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op expected 2 target sizes (the rank of 'memref<128x32xf16, #tile.scope<shared>>'), got 3}}
    tile.copy %A[%m, 0] [128, 32] to %As[0, 0] [1, 128, 32] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @source_sizes_positive(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op source sizes must be positive, got [128, 0]}}
    tile.copy %A[%m, 0] [128, 0] to %As[0, 0] [128, 32] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @target_sizes_positive(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op target sizes must be positive, got [-1, 32]}}
    tile.copy %A[%m, 0] [128, 32] to %As[0, 0] [-1, 32] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @source_region_overflows(%C: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Cs = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op source region (offset 100, size 64 in dim 0) does not fit in the shared buffer 'memref<128x32xf16, #tile.scope<shared>>'}}
    tile.copy %Cs[100, 0] [64, 32] to %C[%m, 0] : memref<128x32xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

// -----

func.func @target_region_negative(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Af = tile.alloc_fragment : memref<128x32xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op target region (offset -16, size 16 in dim 1) does not fit in the fragment buffer 'memref<128x32xf16, #tile.scope<fragment>>'}}
    tile.copy %A[%m, 0] [128, 16] to %Af[0, -16] : memref<?x?xf16> to memref<128x32xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @local_region_overflows() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_local : memref<8xf32, #tile.scope<local>>
    %b = tile.alloc_local : memref<4xf32, #tile.scope<local>>
    // expected-error @below {{'tile.copy' op source region (offset 6, size 4 in dim 0) does not fit in the local buffer 'memref<8xf32, #tile.scope<local>>'}}
    tile.copy %a[6] to %b : memref<8xf32, #tile.scope<local>> to memref<4xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @region_mismatch(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op source region [64, 32] and target region [32, 64] differ after dropping unit dimensions ([64, 32] vs [32, 64])}}
    tile.copy %A[%m, 0] [64, 32] to %As : memref<?x?xf16> to memref<32x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

// Unit dimensions are dropped, but the order of the others must agree.
func.func @region_mismatch_rank_reducing(%Q: memref<?x?x?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Qs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op source region [1, 128, 1, 64] and target region [64, 128] differ after dropping unit dimensions ([128, 64] vs [64, 128])}}
    tile.copy %Q[0, %m, 0, 0] [1, 128, 1, 64] to %Qs : memref<?x?x?x?xf16> to memref<64x128xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @pad_type(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op pad must be a scalar of the source element type 'f16', got 0.000000e+00 : f32}}
    tile.copy %A[%m, 0] to %As {pad = 0.0 : f32} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

// The pad value has the source's element type, not the target's.
func.func @pad_target_type(%C: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Cf = tile.alloc_fragment : memref<128x32xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op pad must be a scalar of the source element type 'f32', got 0.000000e+00 : f16}}
    tile.copy %Cf to %C[%m, 0] {pad = 0.0 : f16} : memref<128x32xf32, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

// -----

func.func @pad_not_scalar(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op pad must be a scalar of the source element type 'f16', got dense<0.000000e+00> : vector<2xf16>}}
    tile.copy %A[%m, 0] to %As {pad = dense<0.0> : vector<2xf16>} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @pad_string(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op pad must be a scalar of the source element type 'f16', got "zero"}}
    tile.copy %A[%m, 0] to %As {pad = "zero"} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @pad_untyped(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op attribute 'pad' failed to satisfy constraint: TypedAttr instance}}
    tile.copy %A[%m, 0] to %As {pad = [0.0 : f16]} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @cp_async_to_fragment(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Af = tile.alloc_fragment : memref<128x32xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op instruction 'cp_async' copies global to shared, not global to fragment}}
    tile.copy %A[%m, 0] to %Af {inst = #tile.copy_inst<cp_async>} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @cp_async_from_shared(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op instruction 'cp_async' copies global to shared, not shared to global}}
    tile.copy %As to %A[%m, 0] {inst = #tile.copy_inst<cp_async>} : memref<128x32xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

// -----

func.func @tma_from_fragment(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Af = tile.alloc_fragment : memref<128x32xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op instruction 'tma' copies global to shared or shared to global, not fragment to global}}
    tile.copy %Af to %A[%m, 0] {inst = #tile.copy_inst<tma>} : memref<128x32xf16, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

// -----

func.func @tma_shared_to_shared() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op instruction 'tma' copies global to shared or shared to global, not shared to shared}}
    tile.copy %a to %b {inst = #tile.copy_inst<tma>} : memref<128x32xf16, #tile.scope<shared>> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @ldmatrix_from_global(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %Af = tile.alloc_fragment : memref<128x32xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op instruction 'ldmatrix' copies shared to fragment, not global to fragment}}
    tile.copy %A[%m, 0] to %Af {inst = #tile.copy_inst<ldmatrix>} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @ldmatrix_to_local() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<8x8xf16, #tile.scope<shared>>
    %b = tile.alloc_local : memref<8x8xf16, #tile.scope<local>>
    // expected-error @below {{'tile.copy' op instruction 'ldmatrix' copies shared to fragment, not shared to local}}
    tile.copy %a to %b {inst = #tile.copy_inst<ldmatrix>} : memref<8x8xf16, #tile.scope<shared>> to memref<8x8xf16, #tile.scope<local>>
  }
  return
}

// -----

func.func @stmatrix_to_global(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op instruction 'stmatrix' copies fragment to shared, not shared to global}}
    tile.copy %As to %A[%m, 0] {inst = #tile.copy_inst<stmatrix>} : memref<128x32xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

// -----

func.func @unknown_inst(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    // expected-error @below {{expected ::mlir::tile::CopyInst to be one of: auto, vector, cp_async, tma, ldmatrix, stmatrix}}
    // expected-error @below {{failed to parse Tile_CopyInstAttr parameter 'value' which is to be a `::mlir::tile::CopyInst`}}
    tile.copy %A[%m, 0] to %As {inst = #tile.copy_inst<bulk>} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
  }
  return
}
