// tile-lower-ops for sm_90a: the accumulators of a TMA-pipelined GEMM leave
// by TMA. Every consumer thread writes its registers into 128-byte-swizzled
// panels (stmatrix for 16-bit outputs, 8-byte pair stores for 32-bit ones),
// fences them for the async proxy, and after a consumer barrier thread 0
// issues one TMA store per panel (cp.async.bulk.tensor shared::cta ->
// global, one bulk group). Before panels are rewritten, and before the
// block exits, thread 0 waits until its stores have read them.
//
// (`// -----` ends each part: test/Robustness/fuzz.py takes them one by one.)
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/f16.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s
// RUN: tile-opt %t/f32.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=F32
// RUN: tile-opt %t/rounds.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=ROUNDS
// RUN: tile-opt %t/dynamic.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=DYN
// RUN: tile-opt %t/disable-load.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=NOLOAD
// RUN: tile-opt %t/shared-tile.mlir --tile-verify-target=target=sm_90a --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s --check-prefix=SHARED
// RUN: not tile-opt %t/shared-tile.mlir --tile-verify-target=target=sm_80 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80

//--- f16.mlir
// C gets a store descriptor of its own (128 x 64 boxes: 128-byte panels).
// CHECK-LABEL: func.func @f16(
// CHECK-SAME: %[[DC:[a-z0-9]+]]: !llvm.ptr {tile.tma = {box = array<i64: 128, 64>, param = 2 : i64, store = true, swizzle = 128 : i64}}
// CHECK: tile.kernel {{.*}} threads(256) attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 148528 : i64}
// CHECK: "wgmma.wait_group.sync.aligned 0;\0A\09membar.cta;"
// The four panels fit the free stage buffers: one round. Each warp writes
// its 16 rows of a panel as four 16 x 16 blocks (stmatrix.x4), at the
// swizzled chunk (chunk XOR row mod 8).
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK: arith.xori
// CHECK-COUNT-16: nvvm.stmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT: nvvm.stmatrix
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK: scf.if
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %[[DC]], %{{.*}}, box[
// CHECK: nvvm.cp.async.bulk.commit.group
// Thread 0 waits for its stores' reads before the block exits.
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: } else {
// CHECK: nvvm.setmaxregister decrease 40
func.func @f16(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

//--- f32.mlir
// f32 outputs: 32-column panels (8 of them), each thread's pairs stored as
// 8-byte vectors (8 panels x 4 column blocks x 2 row halves).
// F32-LABEL: func.func @f32(
// F32-SAME: %[[DC:[a-z0-9]+]]: !llvm.ptr {tile.tma = {box = array<i64: 128, 32>, param = 2 : i64, store = true, swizzle = 128 : i64}}
// F32: nvvm.cp.async.bulk.wait_group 0 {read}
// F32-COUNT-64: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// F32: nvvm.fence.proxy
// F32-COUNT-8: nvvm.cp.async.bulk.tensor.global.shared.cta %[[DC]]
// F32: nvvm.cp.async.bulk.commit.group
func.func @f32(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf32>
  }
  return
}

// -----

//--- rounds.mlir
// Persistent, 4 stages of 48 KiB: two 16 KiB panel buffers fit after the
// ring, so a tile's four panels go out in two rounds; the first waits for
// the last tile's stores, the second for the first round's.
// ROUNDS-LABEL: func.func @rounds(
// ROUNDS: tile.producer_threads = 128 : i64, tile.shared_bytes = 231424 : i64
// ROUNDS: scf.for
// ROUNDS: scf.for
// ROUNDS: "wgmma.wait_group.sync.aligned 0;\0A\09membar.cta;"
// ROUNDS: nvvm.cp.async.bulk.wait_group 0 {read}
// ROUNDS-COUNT-8: nvvm.stmatrix
// ROUNDS: nvvm.fence.proxy
// ROUNDS-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// ROUNDS: nvvm.cp.async.bulk.commit.group
// ROUNDS: nvvm.cp.async.bulk.wait_group 0 {read}
// ROUNDS-COUNT-8: nvvm.stmatrix
// ROUNDS: nvvm.fence.proxy
// ROUNDS-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// ROUNDS: nvvm.cp.async.bulk.commit.group
// ROUNDS: }
// ROUNDS: nvvm.cp.async.bulk.wait_group 0 {read}
// ROUNDS: } else {
func.func @rounds(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%block) in (132) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    %left = arith.subi %c32, %block : index
    %waves = arith.ceildivsi %left, %c128 : index
    scf.for %w = %c0 to %waves step %c1 {
      %wt = arith.muli %w, %c128 : index
      %t = arith.addi %block, %wt : index
      %by = arith.divui %t, %c4 : index
      %bx = arith.remui %t, %c4 : index
      tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c256 : index
      tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 4 {
        %k0 = arith.muli %k, %c64 : index
        tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
        tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
        tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
      }
      tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
    }
  }
  return
}

// -----

//--- dynamic.mlir
// C's row length is only known at run time (TMA needs 16-byte aligned
// rows): the accumulators go out through the stage buffers with st.global.
// DYN-LABEL: func.func @dynamic(
// DYN-NOT: store = true
// DYN-NOT: nvvm.stmatrix
// DYN: vector.store %{{.*}} : memref<?x?xf16>, vector<8xf16>
// DYN-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
func.func @dynamic(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

// -----

//--- disable-load.mlir
// T.copy(..., disable_tma=True) on a load: no TMA pipeline; the loop
// pipelines with cp.async (and the gemm runs as mma.sync).
// NOLOAD-LABEL: func.func @disable_load(
// NOLOAD-NOT: nvvm.cp.async.bulk.tensor
// NOLOAD: nvgpu.device_async_copy
// NOLOAD-NOT: nvvm.cp.async.bulk.tensor
func.func @disable_load(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As {tile.disable_tma} : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %C[%m0, %n0] : memref<128x256xf32, #tile.scope<fragment>> to memref<1024x1024xf16>
  }
  return
}

// -----

//--- shared-tile.mlir
// TileLang's epilogue through a shared tile (T.copy(C_local, C_shared);
// T.copy(C_shared, C[...])): one store of the accumulator, by TMA, and the
// tile takes no shared memory, so 4 stages of 48 KiB fit beside its 64 KiB
// (tile-verify-target leaves it out on sm_90a; sm_80 stores through it). A
// shared tile that something else reads keeps its copies (@read_back).
// SM80: error: 'tile.kernel' op allocates 196608 bytes of shared memory; sm_80 allows 166912 per block
// SHARED-LABEL: func.func @shared_tile(
// SHARED: tile.shared_bytes = 197696 : i64
// SHARED-COUNT-16: nvvm.stmatrix
// SHARED: nvvm.fence.proxy
// SHARED-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta
// SHARED-LABEL: func.func @read_back(
// SHARED-NOT: nvvm.stmatrix
// SHARED-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// SHARED: } {tile.consumer_threads = 256 : i64}
func.func @shared_tile(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cs = tile.alloc_shared : memref<128x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 4 {
      %k0 = arith.muli %k, %c64 : index
      %n1 = arith.muli %bx, %c256 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n1] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %Cs : memref<128x256xf32, #tile.scope<fragment>> to memref<128x256xf16, #tile.scope<shared>>
    %n0 = arith.muli %bx, %c256 : index
    tile.copy %Cs to %C[%m0, %n0] : memref<128x256xf16, #tile.scope<shared>> to memref<1024x1024xf16>
  }
  return
}
func.func @read_back(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>, %D: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel (%bx, %by) in (4, 8) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %Cs = tile.alloc_shared : memref<128x256xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x256xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x256xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %A[%m0, %k0] to %As : memref<1024x1024xf16> to memref<128x64xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] to %Bs : memref<1024x1024xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #tile.scope<shared>>, memref<64x256xf16, #tile.scope<shared>>, memref<128x256xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf to %Cs : memref<128x256xf32, #tile.scope<fragment>> to memref<128x256xf16, #tile.scope<shared>>
    tile.copy %Cs to %C[%m0, %n0] : memref<128x256xf16, #tile.scope<shared>> to memref<1024x1024xf16>
    tile.copy %Cs to %D[%m0, %n0] : memref<128x256xf16, #tile.scope<shared>> to memref<1024x1024xf16>
  }
  return
}
