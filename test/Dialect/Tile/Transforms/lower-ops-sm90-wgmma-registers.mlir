// tile-lower-ops for sm_90a: a wgmma whose accumulator, A fragment and the
// 26 registers ptxas adds do not fit the registers each thread of the block
// has (65536 / threads in multiples of 8, at most 255; the producer
// warpgroup of a warp-specialized TMA pipeline counts) is a located error
// before ptxas, which would stop at "Insufficient registers". The limits
// are ptxas's: 192x256 on 384 threads (m64n256: 128 + 26 > 128 with the
// producer) fails there, and so do 256x192 / 256x256 on 512 threads
// (96 registers a thread); 192x192 on 384 threads (96 + 26 <= 128),
// 128x256 on 256 (128 + 26 <= 168) and 192x256 on 384 without warp
// specialization (<= 168) assemble.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/errors.mlir -split-input-file --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a -verify-diagnostics
// RUN: tile-opt %t/fits.mlir -split-input-file --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s

//--- errors.mlir
func.func @n256_on_384(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (16, 21) threads(384) {
    %As = tile.alloc_shared : memref<192x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<192x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<192x256xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %k0] to %As : memref<4096x4096xf16> to memref<192x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %c0] to %Bs : memref<4096x4096xf16> to memref<64x256xf16, #tile.scope<shared>>
      // expected-error @+2 {{'tile.gemm' op runs as m64n256k16 wgmma, which needs 154 registers a thread (its 128-register accumulator and 26 more for ptxas), but each of the 512 threads of the block (384 and the producer warpgroup of the TMA pipeline) has 128 (65536 / threads in multiples of 8, at most 255): ptxas cannot spill an accumulator and would fail}}
      // expected-note @+1 {{a block_N of at most 200 fits; so does this block without warp specialization (pass_configs={PassConfigKey.TL_DISABLE_WARP_SPECIALIZED: True}; tile.warp_specialize = false on the tile.pipelined), whose threads have 168 registers each}}
      tile.gemm %As, %Bs, %Cf : memref<192x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<192x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%c0, %c0] : memref<192x256xf32, #tile.scope<fragment>> to memref<4096x4096xf32>
  }
  return
}

// -----

func.func @n192_on_512(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (21, 16) threads(512) {
    %As = tile.alloc_shared : memref<256x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x192xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<256x192xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<256x192xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %k0] to %As : memref<4096x4096xf16> to memref<256x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %c0] to %Bs : memref<4096x4096xf16> to memref<64x192xf16, #tile.scope<shared>>
      // expected-error @+2 {{runs as m64n192k16 wgmma, which needs 122 registers a thread (its 96-register accumulator and 26 more for ptxas), but each of the 640 threads of the block (512 and the producer warpgroup of the TMA pipeline) has 96}}
      // expected-note @+1 {{a block_N of at most 136 fits; so does this block without warp specialization}}
      tile.gemm %As, %Bs, %Cf : memref<256x64xf16, #tile.scope<shared>>, memref<64x192xf16, #tile.scope<shared>>, memref<256x192xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%c0, %c0] : memref<256x192xf32, #tile.scope<fragment>> to memref<4096x4096xf32>
  }
  return
}

// -----

// Without warp specialization 512 threads have 128 registers each: too few
// for m64n256 (154), and there is no producer to drop.
func.func @n256_on_512_no_ws(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (16, 16) threads(512) {
    %As = tile.alloc_shared : memref<256x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<256x256xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 2 attributes {tile.warp_specialize = false} {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %k0] to %As : memref<4096x4096xf16> to memref<256x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %c0] to %Bs : memref<4096x4096xf16> to memref<64x256xf16, #tile.scope<shared>>
      // expected-error @+2 {{runs as m64n256k16 wgmma, which needs 154 registers a thread (its 128-register accumulator and 26 more for ptxas), but each of the 512 threads of the block has 128 (65536 / threads in multiples of 8, at most 255)}}
      // expected-note-re @+1 {{a block_N of at most 200 fits{{$}}}}
      tile.gemm %As, %Bs, %Cf : memref<256x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<256x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%c0, %c0] : memref<256x256xf32, #tile.scope<fragment>> to memref<4096x4096xf32>
  }
  return
}

//--- fits.mlir
// CHECK-LABEL: func.func @n192_on_384
// CHECK: nvvm.setmaxregister increase 152
// CHECK: nvvm.wgmma.mma_async
func.func @n192_on_384(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (21, 21) threads(384) {
    %As = tile.alloc_shared : memref<192x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x192xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<192x192xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<192x192xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %k0] to %As : memref<4096x4096xf16> to memref<192x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %c0] to %Bs : memref<4096x4096xf16> to memref<64x192xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<192x64xf16, #tile.scope<shared>>, memref<64x192xf16, #tile.scope<shared>>, memref<192x192xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%c0, %c0] : memref<192x192xf32, #tile.scope<fragment>> to memref<4096x4096xf32>
  }
  return
}

// -----

// CHECK-LABEL: func.func @n256_on_384_no_ws
// CHECK-NOT: nvvm.setmaxregister
// CHECK: nvvm.wgmma.mma_async
func.func @n256_on_384_no_ws(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx, %by) in (16, 21) threads(384) {
    %As = tile.alloc_shared : memref<192x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<192x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<192x256xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 3 attributes {tile.warp_specialize = false} {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %k0] to %As : memref<4096x4096xf16> to memref<192x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %c0] to %Bs : memref<4096x4096xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<192x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<192x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%c0, %c0] : memref<192x256xf32, #tile.scope<fragment>> to memref<4096x4096xf32>
  }
  return
}
