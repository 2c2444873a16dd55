// tile-verify-target: valid kernels pass on each target, and every
// diagnostic of the pass is produced where expected.
//
// RUN: rm -rf %t && split-file %s %t
//
// Valid kernels. The common ones pass everywhere; the others on the targets
// that have what they use. The pass does not change the IR.
// RUN: cat %t/common.mlir %t/cpu.mlir | tile-opt --tile-verify-target=target=cpu | FileCheck %s --check-prefixes=CHECK,CPU
// RUN: cat %t/common.mlir %t/nvidia.mlir | tile-opt --tile-verify-target=target=sm_80 | FileCheck %s --check-prefixes=CHECK,NV
// RUN: cat %t/common.mlir %t/nvidia.mlir %t/sm90a.mlir | tile-opt --tile-verify-target=target=sm_90a | FileCheck %s --check-prefixes=CHECK,NV,SM90A
// RUN: cat %t/common.mlir %t/gfx942.mlir | tile-opt --tile-verify-target=target=gfx942 | FileCheck %s --check-prefixes=CHECK,GFX942
// The default target is sm_90a; the pass can also be given in a pipeline.
// RUN: cat %t/common.mlir %t/nvidia.mlir %t/sm90a.mlir | tile-opt --tile-verify-target | FileCheck %s --check-prefixes=CHECK,NV,SM90A
// RUN: cat %t/common.mlir %t/gfx942.mlir | tile-opt --pass-pipeline='builtin.module(tile-verify-target{target=gfx942})' | FileCheck %s --check-prefixes=CHECK,GFX942
//
// Diagnostics, one target per file.
// RUN: tile-opt %t/cpu-invalid.mlir --tile-verify-target=target=cpu -split-input-file -verify-diagnostics
// RUN: tile-opt %t/sm80-invalid.mlir --tile-verify-target=target=sm_80 -split-input-file -verify-diagnostics
// RUN: tile-opt %t/sm90a-invalid.mlir --tile-verify-target=target=sm_90a -split-input-file -verify-diagnostics
// RUN: tile-opt %t/gfx942-invalid.mlir --tile-verify-target=target=gfx942 -split-input-file -verify-diagnostics
// RUN: tile-opt %t/unknown-target.mlir --tile-verify-target=target=sm_70 -verify-diagnostics
//
// A failing check fails the pass (and tile-opt) even without
// -verify-diagnostics, and names the target.
// RUN: not tile-opt %t/sm90a.mlir --tile-verify-target=target=sm_80 -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: error: 'tile.kernel' op uses thread-block clusters, which sm_80 does not have

//--- common.mlir

// CHECK-LABEL: func.func @gemm_f16
// CHECK: tile.kernel (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) threads(128) {
// CHECK: tile.gemm
func.func @gemm_f16(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %gx: index, %gy: index, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      tile.copy %A[%by, %k] to %As {inst = #tile.copy_inst<vector>} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k, %bx] to %Bs : memref<?x?xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%by, %bx] : memref<128x128xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

// The dense and sparse element types every target has.
// CHECK-LABEL: func.func @base_types
// CHECK-COUNT-5: tile.gemm
// CHECK: tile.gemm_sp
func.func @base_types() {
  tile.kernel (%bx) in (1) threads(256) {
    %f16 = tile.alloc_shared : memref<32x32xf16, #tile.scope<shared>>
    %bf16 = tile.alloc_shared : memref<32x32xbf16, #tile.scope<shared>>
    %f32 = tile.alloc_shared : memref<32x32xf32, #tile.scope<shared>>
    %i8 = tile.alloc_shared : memref<32x32xi8, #tile.scope<shared>>
    %a16 = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<32x2xi16, #tile.scope<shared>>
    %c32 = tile.alloc_fragment : memref<32x32xf32, #tile.scope<fragment>>
    %c16 = tile.alloc_fragment : memref<32x32xf16, #tile.scope<fragment>>
    %ci = tile.alloc_fragment : memref<32x32xi32, #tile.scope<fragment>>
    tile.gemm %f16, %f16, %c32 : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.gemm %f16, %f16, %c16 : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<fragment>>
    tile.gemm %bf16, %bf16, %c32 : memref<32x32xbf16, #tile.scope<shared>>, memref<32x32xbf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.gemm %f32, %f32, %c32 : memref<32x32xf32, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.gemm %i8, %i8, %ci : memref<32x32xi8, #tile.scope<shared>>, memref<32x32xi8, #tile.scope<shared>>, memref<32x32xi32, #tile.scope<fragment>>
    tile.gemm_sp %a16, %e, %f16, %c32 : memref<32x16xf16, #tile.scope<shared>>, memref<32x2xi16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}

// 1024 threads is the largest block everywhere; 64 KiB of shared memory
// (gfx942's limit), a fragment share of 255 registers a thread and 512 KiB
// of local buffers fit everywhere.
// CHECK-LABEL: func.func @limits_everywhere
// CHECK: tile.kernel (%{{.*}}) in (1) threads(1024) {
func.func @limits_everywhere() {
  tile.kernel (%bx) in (1) threads(1024) {
    %a = tile.alloc_shared : memref<128x128xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x128xf32, #tile.scope<shared>>
    %f = tile.alloc_fragment : memref<255x1024xf32, #tile.scope<fragment>>
    %l = tile.alloc_local : memref<128x1024xf32, #tile.scope<local>>
    tile.clear %a : memref<128x128xf16, #tile.scope<shared>>
    tile.clear %b : memref<64x128xf32, #tile.scope<shared>>
  }
  return
}

//--- nvidia.mlir

// cp.async and ldmatrix exist from sm_80 on; so do 163 KiB of shared memory.
// NV-LABEL: func.func @nvidia_copies
// NV: {inst = #tile.copy_inst<cp_async>}
// NV: {inst = #tile.copy_inst<ldmatrix>}
func.func @nvidia_copies(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(32) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %Af = tile.alloc_fragment : memref<64x32xf16, #tile.scope<fragment>>
    tile.copy %A[%m, 0] to %As {inst = #tile.copy_inst<cp_async>} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %As to %Af {inst = #tile.copy_inst<ldmatrix>} : memref<64x32xf16, #tile.scope<shared>> to memref<64x32xf16, #tile.scope<fragment>>
  }
  return
}

// NV-LABEL: func.func @nvidia_shared_limit
func.func @nvidia_shared_limit() {
  tile.kernel (%bx) in (1) threads(32) {
    // 163 * 1024 bytes exactly.
    %s = tile.alloc_shared : memref<163x1024xi8, #tile.scope<shared>>
    tile.clear %s : memref<163x1024xi8, #tile.scope<shared>>
  }
  return
}

// A block may end in a partial warp (TileLang's threads=1 or 48) when no
// op splits its work over whole warps.
// NV-LABEL: func.func @partial_warps
// NV: tile.kernel (%{{.*}}) in (1) threads(1) {
// NV: tile.kernel (%{{.*}}) in (2) threads(48) {
func.func @partial_warps(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (1) threads(1) {
    %c0 = arith.constant 0 : index
    %x = memref.load %A[%c0, %c0] : memref<?x?xf16>
    memref.store %x, %A[%c0, %c0] : memref<?x?xf16>
  }
  tile.kernel (%bx) in (2) threads(48) {
    %As = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %Af = tile.alloc_fragment : memref<16x64xf32, #tile.scope<fragment>>
    tile.copy %A[0, 0] to %As : memref<?x?xf16> to memref<16x64xf16, #tile.scope<shared>>
    tile.copy %As to %Af : memref<16x64xf16, #tile.scope<shared>> to memref<16x64xf32, #tile.scope<fragment>>
    tile.copy %Af to %A[0, 0] : memref<16x64xf32, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

//--- sm90a.mlir

// Clusters, TMA, stmatrix, fp8 and 227 KiB of shared memory: sm_90a.
// SM90A-LABEL: func.func @hopper
// SM90A: tile.kernel (%{{.*}}, %{{.*}}) in (%{{.*}}, 2) threads(384) cluster(2, 2) {
func.func @hopper(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E5M2>, %C: memref<?x?xf16>, %n: index) {
  tile.kernel (%bx, %by) in (%n, 2) threads(384) cluster(2, 2) {
    %As = tile.alloc_shared : memref<128x64xf8E4M3FN, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x128xf8E5M2, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %Ch = tile.alloc_fragment : memref<128x128xf16, #tile.scope<fragment>>
    %Cs = tile.alloc_shared : memref<128x128xf16, #tile.scope<shared>>
    // SM90A: {inst = #tile.copy_inst<tma>}
    tile.copy %A[0, 0] to %As {inst = #tile.copy_inst<tma>} : memref<?x?xf8E4M3FN> to memref<128x64xf8E4M3FN, #tile.scope<shared>>
    tile.copy %B[0, 0] to %Bs {inst = #tile.copy_inst<tma>} : memref<?x?xf8E5M2> to memref<64x128xf8E5M2, #tile.scope<shared>>
    // SM90A: tile.gemm {{.*}} : memref<128x64xf8E4M3FN, #tile.scope<shared>>, memref<64x128xf8E5M2, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %Cf : memref<128x64xf8E4M3FN, #tile.scope<shared>>, memref<64x128xf8E5M2, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    // SM90A: tile.gemm {{.*}} : memref<128x64xf8E4M3FN, #tile.scope<shared>>, memref<64x128xf8E5M2, #tile.scope<shared>>, memref<128x128xf16, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %Ch : memref<128x64xf8E4M3FN, #tile.scope<shared>>, memref<64x128xf8E5M2, #tile.scope<shared>>, memref<128x128xf16, #tile.scope<fragment>>
    // SM90A: {inst = #tile.copy_inst<stmatrix>}
    tile.copy %Ch to %Cs {inst = #tile.copy_inst<stmatrix>} : memref<128x128xf16, #tile.scope<fragment>> to memref<128x128xf16, #tile.scope<shared>>
    // SM90A: {inst = #tile.copy_inst<tma>}
    tile.copy %Cs to %C[0, 0] {inst = #tile.copy_inst<tma>} : memref<128x128xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

// SM90A-LABEL: func.func @hopper_shared_limit
func.func @hopper_shared_limit() {
  tile.kernel (%bx) in (1) threads(128) {
    // 227 * 1024 bytes exactly, over two buffers.
    %a = tile.alloc_shared : memref<200x1024xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<27x512xf16, #tile.scope<shared>>
    tile.clear %a : memref<200x1024xi8, #tile.scope<shared>>
    tile.clear %b : memref<27x512xf16, #tile.scope<shared>>
  }
  return
}

// SM90A-LABEL: func.func @hopper_sparse_fp8
// SM90A: tile.gemm_sp
func.func @hopper_sparse_fp8() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x8xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x8xi8, #tile.scope<shared>>, memref<64x64xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

//--- cpu.mlir

// The CPU has no warps: any thread count up to 1024. Its "shared memory" is
// ordinary memory, up to 64 MiB.
// CPU-LABEL: func.func @cpu_kernel
// CPU: tile.kernel (%{{.*}}) in (4) threads(1) {
// CPU: tile.kernel (%{{.*}}) in (4) threads(100) {
func.func @cpu_kernel() {
  tile.kernel (%bx) in (4) threads(1) {
    // 64 MiB exactly.
    %s = tile.alloc_shared : memref<4096x4096xf32, #tile.scope<shared>>
    tile.clear %s : memref<4096x4096xf32, #tile.scope<shared>>
  }
  tile.kernel (%bx) in (4) threads(100) {
    %a = tile.alloc_shared : memref<32x32xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<32x32xf16, #tile.scope<fragment>>
    // CPU: tile.gemm
    tile.gemm %a, %a, %c : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<fragment>>
  }
  // Clusters only group blocks for NVIDIA hardware: the CPU runs the blocks
  // as usual.
  // CPU: tile.kernel (%{{.*}}) in (4) threads(1) cluster(2) {
  tile.kernel (%bx) in (4) threads(1) cluster(2) {
  }
  return
}

//--- gfx942.mlir

// AMD's fp8 types (fnuz) with f32 accumulation; 64-thread wavefronts.
// GFX942-LABEL: func.func @mi300
// GFX942: tile.kernel (%{{.*}}) in (8) threads(64) {
// GFX942: tile.gemm {{.*}} : memref<64x64xf8E4M3FNUZ, #tile.scope<shared>>, memref<64x64xf8E5M2FNUZ, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
func.func @mi300() {
  tile.kernel (%bx) in (8) threads(64) {
    %a = tile.alloc_shared : memref<64x64xf8E4M3FNUZ, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf8E5M2FNUZ, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<64x64xf8E4M3FNUZ, #tile.scope<shared>>, memref<64x64xf8E5M2FNUZ, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

//--- cpu-invalid.mlir

func.func @too_many_threads() {
  // expected-error @below {{'tile.kernel' op uses 2048 threads per block; cpu allows at most 1024}}
  tile.kernel (%bx) in (1) threads(2048) {
  }
  return
}

// -----

func.func @shared_over_limit() {
  // expected-error @below {{'tile.kernel' op allocates 67108868 bytes of shared memory; cpu allows 67108864 per block (use smaller tiles or fewer stages)}}
  tile.kernel (%bx) in (1) threads(1) {
    %s = tile.alloc_shared : memref<4096x4096xf32, #tile.scope<shared>>
    %t = tile.alloc_shared : memref<1xf32, #tile.scope<shared>>
  }
  return
}

// -----

func.func @copy_instructions(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (1) threads(1) {
    %As = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %Af = tile.alloc_fragment : memref<16x16xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op asks for instruction 'cp_async', which cpu does not have; use inst = #tile.copy_inst<auto>}}
    tile.copy %A[0, 0] to %As {inst = #tile.copy_inst<cp_async>} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op asks for instruction 'tma', which cpu does not have}}
    tile.copy %A[0, 0] to %As {inst = #tile.copy_inst<tma>} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op asks for instruction 'ldmatrix', which cpu does not have}}
    tile.copy %As to %Af {inst = #tile.copy_inst<ldmatrix>} : memref<16x16xf16, #tile.scope<shared>> to memref<16x16xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op asks for instruction 'stmatrix', which cpu does not have}}
    tile.copy %Af to %As {inst = #tile.copy_inst<stmatrix>} : memref<16x16xf16, #tile.scope<fragment>> to memref<16x16xf16, #tile.scope<shared>>
    // Vector copies are fine.
    tile.copy %As to %Af {inst = #tile.copy_inst<vector>} : memref<16x16xf16, #tile.scope<shared>> to memref<16x16xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @nvidia_fp8() {
  tile.kernel (%bx) in (1) threads(1) {
    %a = tile.alloc_shared : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op element types 'f8E4M3FN' x 'f8E4M3FN' -> 'f16' are not supported on cpu (it supports f16, bf16, f32 and i8 inputs)}}
    tile.gemm %a, %a, %c : memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @amd_fp8() {
  tile.kernel (%bx) in (1) threads(1) {
    %a = tile.alloc_shared : memref<16x16xf8E4M3FNUZ, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op element types 'f8E4M3FNUZ' x 'f8E4M3FNUZ' -> 'f32' are not supported on cpu (it supports f16, bf16, f32 and i8 inputs)}}
    tile.gemm %a, %a, %c : memref<16x16xf8E4M3FNUZ, #tile.scope<shared>>, memref<16x16xf8E4M3FNUZ, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @amd_fp8_sparse() {
  tile.kernel (%bx) in (1) threads(1) {
    %a = tile.alloc_shared : memref<16x8xf8E5M2FNUZ, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<16x2xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<16x16xf8E5M2FNUZ, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op sparse element types 'f8E5M2FNUZ' x 'f8E5M2FNUZ' -> 'f32' are not supported on cpu}}
    tile.gemm_sp %a, %e, %b, %c : memref<16x8xf8E5M2FNUZ, #tile.scope<shared>>, memref<16x2xi8, #tile.scope<shared>>, memref<16x16xf8E5M2FNUZ, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

//--- sm80-invalid.mlir

func.func @too_many_threads() {
  // expected-error @below {{'tile.kernel' op uses 2048 threads per block; sm_80 allows at most 1024}}
  tile.kernel (%bx) in (1) threads(2048) {
  }
  return
}

// -----

// A partial warp is fine for copies and loops; gemms and reductions split
// their work over whole warps.
func.func @not_warp_multiple(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (1) threads(48) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    %r = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    tile.copy %A[0, 0] to %a : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.gemm' op splits its work over whole warps, but the kernel's 48 threads per block are not a multiple of sm_80's warp size 32}}
    tile.gemm %a, %a, %c : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op splits its work over whole warps, but the kernel's 48 threads per block are not a multiple of sm_80's warp size 32}}
    tile.reduce sum %c into %r dim = 1 : memref<16x16xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Both limits at once: two diagnostics.
func.func @too_many_and_not_warp_multiple() {
  // expected-error @below {{'tile.kernel' op uses 1025 threads per block; sm_80 allows at most 1024}}
  tile.kernel (%bx) in (1) threads(1025) {
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    %r = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op splits its work over whole warps, but the kernel's 1025 threads per block are not a multiple of sm_80's warp size 32}}
    tile.reduce max %c into %r dim = 1 : memref<16x16xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @cluster() {
  // expected-error @below {{'tile.kernel' op uses thread-block clusters, which sm_80 does not have}}
  tile.kernel (%bx, %by) in (4, 4) threads(128) cluster(2, 1) {
  }
  return
}

// -----

func.func @shared_over_limit() {
  // 163 KiB + 1 byte.
  // expected-error @below {{'tile.kernel' op allocates 166913 bytes of shared memory; sm_80 allows 166912 per block (use smaller tiles or fewer stages)}}
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<163x1024xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<1xi8, #tile.scope<shared>>
  }
  return
}

// -----

// Shared buffers allocated inside loops count too.
func.func @shared_in_loops(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'tile.kernel' op allocates 196608 bytes of shared memory; sm_80 allows 166912 per block}}
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<256x128xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      %b = tile.alloc_shared : memref<256x128xf16, #tile.scope<shared>>
      tile.parallel (%i) in (4) {
        %c = tile.alloc_shared : memref<256x128xf16, #tile.scope<shared>>
      }
    }
  }
  return
}

// -----

func.func @fp8_gemm() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf8E5M2, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op element types 'f8E4M3FN' x 'f8E5M2' -> 'f32' are not supported on sm_80 (it supports f16, bf16, f32 (tf32) and i8 inputs (no fp8 before sm_89))}}
    tile.gemm %a, %b, %c : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<32x64xf8E5M2, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @fp8_sparse_gemm() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<64x8xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x64xf8E4M3FN, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op sparse element types 'f8E4M3FN' x 'f8E4M3FN' -> 'f16' are not supported on sm_80}}
    tile.gemm_sp %a, %e, %b, %c : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x8xi8, #tile.scope<shared>>, memref<64x64xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @tma(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op asks for instruction 'tma', which sm_80 does not have; use inst = #tile.copy_inst<auto>}}
    tile.copy %A[0, 0] to %As {inst = #tile.copy_inst<tma>} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op asks for instruction 'tma', which sm_80 does not have; use inst = #tile.copy_inst<auto>}}
    tile.copy %As to %A[0, 0] {inst = #tile.copy_inst<tma>} : memref<64x32xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

// -----

func.func @stmatrix() {
  tile.kernel (%bx) in (1) threads(128) {
    %Cf = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    %Cs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op asks for instruction 'stmatrix', which sm_80 does not have; use inst = #tile.copy_inst<auto>}}
    tile.copy %Cf to %Cs {inst = #tile.copy_inst<stmatrix>} : memref<64x64xf16, #tile.scope<fragment>> to memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----

// Every kernel is checked, and every op of a kernel: all problems are
// reported, not only the first.
func.func @all_problems_reported() {
  // expected-error @below {{'tile.kernel' op uses 2000 threads per block; sm_80 allows at most 1024}}
  // expected-error @below {{'tile.kernel' op uses thread-block clusters, which sm_80 does not have}}
  // expected-error @below {{'tile.kernel' op allocates 262400 bytes of shared memory; sm_80 allows 166912 per block}}
  tile.kernel (%bx) in (2) threads(2000) cluster(2) {
    %a = tile.alloc_shared : memref<256x256xf32, #tile.scope<shared>>
    %f = tile.alloc_shared : memref<16x16xf8E5M2, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op splits its work over whole warps, but the kernel's 2000 threads per block are not a multiple of sm_80's warp size 32}}
    // expected-error @below {{'tile.gemm' op element types 'f8E5M2' x 'f8E5M2' -> 'f32' are not supported on sm_80}}
    tile.gemm %f, %f, %c : memref<16x16xf8E5M2, #tile.scope<shared>>, memref<16x16xf8E5M2, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
    %h = tile.alloc_fragment : memref<16x16xf8E5M2, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op asks for instruction 'stmatrix', which sm_80 does not have}}
    tile.copy %h to %f {inst = #tile.copy_inst<stmatrix>} : memref<16x16xf8E5M2, #tile.scope<fragment>> to memref<16x16xf8E5M2, #tile.scope<shared>>
  }
  tile.kernel (%bx) in (2) threads(33) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op splits its work over whole warps, but the kernel's 33 threads per block are not a multiple of sm_80's warp size 32}}
    tile.gemm %a, %a, %c : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

//--- sm90a-invalid.mlir

// 1056 is a multiple of 32 but above the limit.
func.func @too_many_threads() {
  // expected-error @below {{'tile.kernel' op uses 1056 threads per block; sm_90a allows at most 1024}}
  tile.kernel (%bx) in (1) threads(1056) {
  }
  return
}

// -----

func.func @not_warp_multiple() {
  tile.kernel (%bx) in (1) threads(100) cluster(1) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op splits its work over whole warps, but the kernel's 100 threads per block are not a multiple of sm_90a's warp size 32}}
    tile.gemm %a, %a, %c : memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @shared_over_limit() {
  // 227 KiB + 2 bytes.
  // expected-error @below {{'tile.kernel' op allocates 232450 bytes of shared memory; sm_90a allows 232448 per block (use smaller tiles or fewer stages)}}
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<227x1024xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<1xf16, #tile.scope<shared>>
  }
  return
}

// -----

// AMD's fp8 types are not NVIDIA's.
func.func @amd_fp8() {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf8E4M3FNUZ, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<32x64xf8E4M3FNUZ, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op element types 'f8E4M3FNUZ' x 'f8E4M3FNUZ' -> 'f32' are not supported on sm_90a (it supports f16, bf16, f32 (tf32), fp8 e4m3fn/e5m2 and i8 inputs)}}
    tile.gemm %a, %b, %c : memref<64x32xf8E4M3FNUZ, #tile.scope<shared>>, memref<32x64xf8E4M3FNUZ, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// And AMD's on NVIDIA targets.
func.func @amd_barrier() {
  tile.kernel (%bx) in (1) threads(64) {
    // expected-error @below {{'amdgpu.lds_barrier' op is AMD-only thread-level code, which sm_90a cannot run}}
    amdgpu.lds_barrier
  }
  return
}

//--- gfx942-invalid.mlir

func.func @too_many_threads() {
  // expected-error @below {{'tile.kernel' op uses 1088 threads per block; gfx942 allows at most 1024}}
  tile.kernel (%bx) in (1) threads(1088) {
  }
  return
}

// -----

// A multiple of NVIDIA's warp size is not one of AMD's wavefront size.
func.func @not_wavefront_multiple() {
  tile.kernel (%bx) in (1) threads(96) {
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    %r = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.reduce' op splits its work over whole warps, but the kernel's 96 threads per block are not a multiple of gfx942's warp size 64}}
    tile.reduce sum %c into %r dim = 1 : memref<16x16xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @cluster() {
  // expected-error @below {{'tile.kernel' op uses thread-block clusters, which gfx942 does not have}}
  tile.kernel (%bx) in (2) threads(64) cluster(2) {
  }
  return
}

// -----

func.func @lds_over_limit() {
  // 64 KiB + 1 byte, counting i1 elements as bits: 8 i1 make 1 byte.
  // expected-error @below {{'tile.kernel' op allocates 65537 bytes of shared memory; gfx942 allows 65536 per block (use smaller tiles or fewer stages)}}
  tile.kernel (%bx) in (1) threads(256) {
    %a = tile.alloc_shared : memref<128x128xf32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<8xi1, #tile.scope<shared>>
  }
  return
}

// -----

func.func @copy_instructions(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (1) threads(64) {
    %As = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %Af = tile.alloc_fragment : memref<16x16xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op asks for instruction 'cp_async', which gfx942 does not have; use inst = #tile.copy_inst<auto>}}
    tile.copy %A[0, 0] to %As {inst = #tile.copy_inst<cp_async>} : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
    // expected-error @below {{'tile.copy' op asks for instruction 'tma', which gfx942 does not have}}
    tile.copy %As to %A[0, 0] {inst = #tile.copy_inst<tma>} : memref<16x16xf16, #tile.scope<shared>> to memref<?x?xf16>
    // expected-error @below {{'tile.copy' op asks for instruction 'ldmatrix', which gfx942 does not have}}
    tile.copy %As to %Af {inst = #tile.copy_inst<ldmatrix>} : memref<16x16xf16, #tile.scope<shared>> to memref<16x16xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op asks for instruction 'stmatrix', which gfx942 does not have}}
    tile.copy %Af to %As {inst = #tile.copy_inst<stmatrix>} : memref<16x16xf16, #tile.scope<fragment>> to memref<16x16xf16, #tile.scope<shared>>
  }
  return
}

// -----

func.func @nvidia_fp8() {
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x16xf8E4M3FN, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op element types 'f8E4M3FN' x 'f8E4M3FN' -> 'f32' are not supported on gfx942 (it supports f16, bf16, f32, i8 and fp8 e4m3fnuz/e5m2fnuz inputs)}}
    tile.gemm %a, %a, %c : memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// AMD fp8 accumulates in f32 only.
func.func @amd_fp8_f16_accumulator() {
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x16xf8E4M3FNUZ, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf16, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm' op element types 'f8E4M3FNUZ' x 'f8E4M3FNUZ' -> 'f16' are not supported on gfx942}}
    tile.gemm %a, %a, %c : memref<16x16xf8E4M3FNUZ, #tile.scope<shared>>, memref<16x16xf8E4M3FNUZ, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @nvidia_fp8_sparse() {
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x8xf8E5M2, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<16x2xi8, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<16x16xf8E5M2, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.gemm_sp' op sparse element types 'f8E5M2' x 'f8E5M2' -> 'f32' are not supported on gfx942}}
    tile.gemm_sp %a, %e, %b, %c : memref<16x8xf8E5M2, #tile.scope<shared>>, memref<16x2xi8, #tile.scope<shared>>, memref<16x16xf8E5M2, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// NVIDIA's thread-level ops (what T.alloc_barrier and T.tma_copy emit)
// have no AMD lowering: refused where they are.
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
func.func @nvidia_barriers() {
  tile.kernel (%bx) in (1) threads(64) {
    // expected-error @below {{'nvgpu.mbarrier.create' op is NVIDIA-only thread-level code, which gfx942 cannot run (TileLang's T.alloc_barrier, T.tma_copy and the like are NVIDIA's mbarriers and TMA); write the kernel with tile ops or compile for a target of that vendor}}
    %bars = nvgpu.mbarrier.create -> !bars
  }
  return
}

//--- unknown-target.mlir

// expected-error @below {{unknown target 'sm_70'; expected one of cpu, sm_80, sm_90a, gfx942}}
module {
  func.func @f() {
    tile.kernel (%bx) in (1) threads(32) {
    }
    return
  }
}
