// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @a_rank() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x4xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op operand A must be a 2-d tile, got 'memref<64xf16, #tile.scope<shared>>'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64xf16, #tile.scope<shared>>, memref<64x4xi16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @c_scope() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x4xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %c = tile.alloc_local : memref<64x64xf32, #tile.scope<local>>
    // expected-error @below {{'tile.gemm_sp' op accumulator C must be a fragment buffer (memory space #tile.scope<...>), got a local memref 'memref<64x64xf32, #tile.scope<local>>'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<64x4xi16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<local>>
  }
  return
}

// -----

func.func @e_rank() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<256xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op operand E must be a 2-d tile, got 'memref<256xi16, #tile.scope<shared>>'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<256xi16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @e_global(%e: memref<64x4xi16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op metadata E must be a shared or fragment buffer (memory space #tile.scope<...>), got a global memref 'memref<64x4xi16>'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<64x4xi16>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @k_not_multiple_of_4() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x15xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x2xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<30x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op K (30) must be a multiple of 4 for 2:4 sparsity}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x15xf16, #tile.scope<shared>>, memref<64x2xi16, #tile.scope<shared>>, memref<30x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A is given uncompressed (M x K).
func.func @a_not_compressed() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x4xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op compressed A must be M x K/2 = 64x32 for K = 64 (from B), got 'memref<64x64xf16, #tile.scope<shared>>'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x64xf16, #tile.scope<shared>>, memref<64x4xi16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// K comes from B's second dimension with transpose_b.
func.func @a_not_compressed_transposed() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x4xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op compressed A must be M x K/2 = 64x64 for K = 128 (from B), got 'memref<64x32xf16, #tile.scope<shared>>'}}
    tile.gemm_sp %a, %e, %b, %c {transpose_b} : memref<64x32xf16, #tile.scope<shared>>, memref<64x4xi16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @metadata_float() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x4xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op metadata E must have element type i8, i16 or i32, got 'f16'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<64x4xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @metadata_i64() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x1xi64, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op metadata E must have element type i8, i16 or i32, got 'i64'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<64x1xi64, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @metadata_shape() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x8xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op metadata E must be M x K/16 = 64x4 for K = 64 and element type 'i16', got 'memref<64x8xi16, #tile.scope<shared>>'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<64x8xi16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @metadata_rows() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<32x2xi32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op metadata E must be M x K/32 = 64x2 for K = 64 and element type 'i32', got 'memref<32x2xi32, #tile.scope<shared>>'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x2xi32, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// K = 4 cannot be packed into i8 metadata (8 bits per 4 elements of K).
func.func @metadata_width_too_large() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x2xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x1xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<4x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op metadata E must be M x K/8 = 64x0 for K = 4 and element type 'i8'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x2xf16, #tile.scope<shared>>, memref<64x1xi8, #tile.scope<shared>>, memref<4x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @c_shape() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x4xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op accumulator C must be 64x128 (M x N), got 'memref<64x64xf32, #tile.scope<fragment>>'}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<64x4xi16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// f32 (tf32) is legal for dense gemms only.
func.func @f32_sparse() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf32, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x4xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op unsupported element types 'f32' x 'f32' -> 'f32' for a sparse gemm; legal are f16 x f16 -> f16 | f32, bf16 x bf16 -> f32, fp8 x fp8 -> f32 | f16, i8 x i8 -> i32}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf32, #tile.scope<shared>>, memref<64x4xi16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @i8_to_i8() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xi8, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x4xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xi8, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xi8, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op unsupported element types 'i8' x 'i8' -> 'i8' for a sparse gemm}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xi8, #tile.scope<shared>>, memref<64x4xi16, #tile.scope<shared>>, memref<64x64xi8, #tile.scope<shared>>, memref<64x64xi8, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @gemm_sp_wgmma() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x16xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x2xi16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op runs as mma_sync on its expanded A, but has #tile.mma<wgmma, m64n64k16, warps = [4, 1]>}}
    tile.gemm_sp %a, %e, %b, %c {mma = #tile.mma<wgmma, m64n64k16, warps = [4, 1]>} : memref<64x16xf16, #tile.scope<shared>>, memref<64x2xi16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}
