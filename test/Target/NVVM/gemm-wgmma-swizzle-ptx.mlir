// wgmma from 64- and 32-byte swizzled panels, tile IR to PTX: GEMMs whose
// shared operand rows are not 128 bytes take the TMA pipeline and wgmma
// too, each operand in panels of the widest swizzle its rows fill
// (getPanelBytes). The launcher builds each tensor map with that swizzle
// (tile.tma's `swizzle`); each wgmma descriptor carries the layout type and
// strides of its operand's width (the constant OR-ed into the descriptor:
// LBO bits 16-29, SBO bits 32-45, layout type bits 62-63; see
// WgmmaLayout.h and wgmma-layout.test). No mma.sync is left, and ptxas
// assembles each kernel without spills or serialized wgmmas.
//
// REQUIRES: ptxas
//
// RUN: rm -rf %t && split-file %s %t
//
// TileLang's example_gemm.py (128x128x32, 128 threads): A 128x32 f16 in
// 64-byte panels (K-major: SBO 512, SWIZZLE_64B), B 32x128 in 128-byte
// panels (MN-major: LBO 32 rows x 128 bytes, SBO 1024, SWIZZLE_128B).
// RUN: tile-opt %t/gemm64.mlir --tile-to-nvvm='chip=sm_90a format=isa' -o %t/gemm64.out
// RUN: FileCheck %s --check-prefix=HOST64 < %t/gemm64.out
// RUN: %python %S/extract_ptx.py %t/gemm64.out %t/gemm64.ptx
// RUN: FileCheck %s --check-prefix=GEMM64 < %t/gemm64.ptx
// RUN: /usr/local/cuda/bin/ptxas -arch=sm_90a -v %t/gemm64.ptx -o %t/gemm64.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// HOST64-DAG: tile.tma = {box = array<i64: 128, 32>, param = 0 : i64, swizzle = 64 : i64}
// HOST64-DAG: tile.tma = {box = array<i64: 32, 64>, param = 1 : i64, swizzle = 128 : i64}
// GEMM64-NOT: mma.sync
// GEMM64-DAG: or.b64 {{.*}}, -9223371899415756800;
// GEMM64-DAG: or.b64 {{.*}}, 4611686293322072064;
// GEMM64-DAG: wgmma.fence.sync.aligned
// GEMM64-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// GEMM64: wgmma.commit_group.sync.aligned
// GEMM64-NOT: mma.sync
//
// TileLang's fp8 example (128x128x64 e4m3, 128 threads, B transposed): both
// operands K-major in 64-byte panels.
// RUN: tile-opt %t/fp8.mlir --tile-to-nvvm='chip=sm_90a format=isa' -o %t/fp8.out
// RUN: FileCheck %s --check-prefix=HOSTFP8 < %t/fp8.out
// RUN: %python %S/extract_ptx.py %t/fp8.out %t/fp8.ptx
// RUN: FileCheck %s --check-prefix=FP8 < %t/fp8.ptx
// RUN: /usr/local/cuda/bin/ptxas -arch=sm_90a -v %t/fp8.ptx -o %t/fp8.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// HOSTFP8-DAG: tile.tma = {box = array<i64: 128, 64>, param = 0 : i64, swizzle = 64 : i64}
// HOSTFP8-DAG: tile.tma = {box = array<i64: 128, 64>, param = 1 : i64, swizzle = 64 : i64}
// FP8-NOT: mma.sync
// FP8-DAG: or.b64 {{.*}}, -9223371899415756800;
// FP8-DAG: wgmma.fence.sync.aligned
// FP8-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// FP8-NOT: mma.sync
//
// 32-byte rows (A 128x16 f16, K-major: SBO 256, SWIZZLE_32B), and B 16x96
// f16 (192-byte rows: three 64-byte panels, MN-major: LBO 16 rows x 64
// bytes, SBO 512, SWIZZLE_64B), one warpgroup a 64-row tile.
// RUN: tile-opt %t/gemm32.mlir --tile-to-nvvm='chip=sm_90a format=isa' -o %t/gemm32.out
// RUN: FileCheck %s --check-prefix=HOST32 < %t/gemm32.out
// RUN: %python %S/extract_ptx.py %t/gemm32.out %t/gemm32.ptx
// RUN: FileCheck %s --check-prefix=GEMM32 < %t/gemm32.ptx
// RUN: /usr/local/cuda/bin/ptxas -arch=sm_90a -v %t/gemm32.ptx -o %t/gemm32.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// HOST32-DAG: tile.tma = {box = array<i64: 64, 16>, param = 0 : i64, swizzle = 32 : i64}
// HOST32-DAG: tile.tma = {box = array<i64: 16, 32>, param = 1 : i64, swizzle = 64 : i64}
// GEMM32-NOT: mma.sync
// GEMM32-DAG: or.b64 {{.*}}, -4611685949707845632;
// GEMM32-DAG: or.b64 {{.*}}, -9223371899411628032;
// GEMM32: wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16
// GEMM32-NOT: mma.sync
//
// PTXAS-NOT: warning
// PTXAS-NOT: serialized
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

//--- gemm64.mlir
func.func @gemm64(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %kt = arith.constant 128 : index
  tile.kernel (%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0] to %As : memref<4096x4096xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<4096x4096xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x128xf32, #tile.scope<fragment>> to memref<4096x4096xf16>
  }
  return
}

//--- fp8.mlir
func.func @gemm_fp8(%A: memref<4096x4096xf8E4M3FN>, %B: memref<4096x4096xf8E4M3FN>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf8E4M3FN, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<128x64xf8E4M3FN, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<4096x4096xf8E4M3FN> to memref<128x64xf8E4M3FN, #tile.scope<shared>>
      tile.copy %B[%n0, %k0] to %Bs : memref<4096x4096xf8E4M3FN> to memref<128x64xf8E4M3FN, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {transpose_b} : memref<128x64xf8E4M3FN, #tile.scope<shared>>, memref<128x64xf8E4M3FN, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x128xf32, #tile.scope<fragment>> to memref<4096x4096xf32>
  }
  return
}

//--- gemm32.mlir
func.func @gemm32(%A: memref<4096x4096xf16>, %B: memref<4096x4032xf16>, %C: memref<4096x4032xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c96 = arith.constant 96 : index
  %kt = arith.constant 256 : index
  tile.kernel (%bx, %by) in (42, 64) threads(128) {
    %As = tile.alloc_shared : memref<64x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x96xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x96xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<64x96xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c96 : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 4 {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%m0, %k0] to %As : memref<4096x4096xf16> to memref<64x16xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<4096x4032xf16> to memref<16x96xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<64x16xf16, #tile.scope<shared>>, memref<16x96xf16, #tile.scope<shared>>, memref<64x96xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<64x96xf32, #tile.scope<fragment>> to memref<4096x4032xf32>
  }
  return
}
