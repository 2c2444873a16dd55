// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @a_rank() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<2x64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op operand A must be a 2-d tile, got 'memref<2x64x32xf16, #tile.scope<shared>>'}}
    tile.gemm %a, %b, %c : memref<2x64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @b_rank() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op operand B must be a 2-d tile, got 'memref<32xf16, #tile.scope<shared>>'}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @c_rank() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<1x64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op operand C must be a 2-d tile, got 'memref<1x64x64xf32, #tile.scope<fragment>>'}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<1x64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @a_global(%a: memref<64x32xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op operand A must be a shared or fragment buffer (memory space #tile.scope<...>), got a global memref 'memref<64x32xf16>'}}
    tile.gemm %a, %b, %c : memref<64x32xf16>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @b_local() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_local : memref<32x64xf16, #tile.scope<local>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op operand B must be a shared or fragment buffer (memory space #tile.scope<...>), got a local memref 'memref<32x64xf16, #tile.scope<local>>'}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<local>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @b_foreign(%b: memref<32x64xf16, 3>) {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op operand B must be a shared or fragment buffer (memory space #tile.scope<...>), got a foreign memref 'memref<32x64xf16, 3>'}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, 3>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @c_shared() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    // expected-error @below {{'tile.gemm' op accumulator C must be a fragment buffer (memory space #tile.scope<...>), got a shared memref 'memref<64x64xf32, #tile.scope<shared>>'}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @k_mismatch() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op K of A (32, A is 'memref<64x32xf16, #tile.scope<shared>>') does not match K of B (16, B is 'memref<16x64xf16, #tile.scope<shared>>')}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<16x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// With transpose_b, B is N x K: a B that would be right untransposed is not.
func.func @k_mismatch_transposed() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op K of A (32, A is 'memref<64x32xf16, #tile.scope<shared>>') does not match K of B (64, B is 'memref<32x64xf16, #tile.scope<shared>>' transposed)}}
    tile.gemm %a, %b, %c {transpose_b} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @k_mismatch_transposed_a() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<32x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op K of A (64, A is 'memref<64x32xf16, #tile.scope<shared>>' transposed) does not match K of B (32, B is 'memref<32x64xf16, #tile.scope<shared>>')}}
    tile.gemm %a, %b, %c {transpose_a} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<32x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @c_shape() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op accumulator C must be 128x64 (M x N), got 'memref<64x128xf32, #tile.scope<fragment>>'}}
    tile.gemm %a, %b, %c : memref<128x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @mixed_input_types() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xbf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op unsupported element types 'f16' x 'bf16' -> 'f32'; legal are: f16 x f16 -> f16 | f32, bf16 x bf16 -> f32, f32 x f32 -> f32, fp8 x fp8 -> f32 | f16, i8 x i8 -> i32}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xbf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @bf16_accumulator() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xbf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xbf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xbf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op unsupported element types 'bf16' x 'bf16' -> 'bf16'}}
    tile.gemm %a, %b, %c : memref<64x32xbf16, #tile.scope<shared>>, memref<32x64xbf16, #tile.scope<shared>>, memref<64x64xbf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @i8_to_f32() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xi8, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op unsupported element types 'i8' x 'i8' -> 'f32'}}
    tile.gemm %a, %b, %c : memref<64x32xi8, #tile.scope<shared>>, memref<32x64xi8, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @f32_to_f16() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf32, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op unsupported element types 'f32' x 'f32' -> 'f16'}}
    tile.gemm %a, %b, %c : memref<64x32xf32, #tile.scope<shared>>, memref<32x64xf32, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @fp8_mixed_with_f16() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op unsupported element types 'f8E4M3FN' x 'f16' -> 'f32'}}
    tile.gemm %a, %b, %c : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @bad_policy() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op attribute 'policy' failed to satisfy constraint: Warp partition of a gemm}}
    tile.gemm %a, %b, %c {policy = #tile.copy_inst<auto>} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @dynamic_operand(%a: memref<?x32xf16, #tile.scope<shared>>) {
  tile.kernel (%bx) in (1) threads(128) {
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op operand #0 must be statically shaped memref of any type values, but got 'memref<?x32xf16, #tile.scope<shared>>'}}
    tile.gemm %a, %b, %c : memref<?x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// #tile.mma must tile the gemm over the kernel's warps.
func.func @mma_wrong_k() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op has #tile.mma<mma_sync, m16n8k8, warps = [2, 2]>, whose K must be 16 for inputs of 'f16' and divide the gemm's K (32)}}
    tile.gemm %a, %b, %c {mma = #tile.mma<mma_sync, m16n8k8, warps = [2, 2]>} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @mma_does_not_tile() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op has #tile.mma<wgmma, m64n128k16, warps = [4, 1]>, which does not tile its 64x64 output}}
    tile.gemm %a, %b, %c {mma = #tile.mma<wgmma, m64n128k16, warps = [4, 1]>} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Warpgroups along N: each m64nN instruction covers N / gN columns.
func.func @wgmma_along_n_does_not_tile() {
  tile.kernel (%bx) in (1) threads(256) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op has #tile.mma<wgmma, m64n64k16, warps = [4, 2]>, which does not tile its 64x64 output}}
    tile.gemm %a, %b, %c {mma = #tile.mma<wgmma, m64n64k16, warps = [4, 2]>} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @mma_warps_of_another_block() {
  tile.kernel (%bx) in (1) threads(256) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op has #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>, a partition over 4 warps, but the kernel has 256 threads}}
    tile.gemm %a, %b, %c {mma = #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @mma_fp8_mma_sync() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op has fp8 inputs, which run as wgmma only, but #tile.mma<mma_sync, m16n8k32, warps = [4, 1]> asks for mma_sync}}
    tile.gemm %a, %b, %c {transpose_b, mma = #tile.mma<mma_sync, m16n8k32, warps = [4, 1]>} : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}
