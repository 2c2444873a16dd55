// tile-lower-ops for sm_80 (after tile-infer-layouts): the structure of the
// thread-level IR it produces, and every diagnostic of the NVIDIA lowering.
//
// Shared buffers are memref.views of gpu.dynamic_shared_memory at 128-byte
// aligned byte offsets (their total in the kernel's tile.shared_bytes);
// fragments are per-thread register arrays (memref.alloca) walked through
// their layout's inverse; local buffers are per-thread arrays of their shape.
// Shared writes are bracketed by gpu.barrier; copies between global and
// shared memory move 16-byte vectors; gemm is nvgpu.ldmatrix +
// nvgpu.mma.sync m16n8k16; atomics are memref.atomic_rmw.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/ops.mlir -split-input-file --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 -verify-diagnostics | FileCheck %s
// Without tile-infer-layouts: fragments without layouts.
// RUN: tile-opt %t/no-infer.mlir -split-input-file --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 -verify-diagnostics
// RUN: tile-opt %t/unknown-target.mlir --tile-lower-ops=target=sm_70 -verify-diagnostics
// A failure fails the pass (and tile-opt).
// RUN: not tile-opt %t/no-infer.mlir -split-input-file --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 -o /dev/null 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: error: 'tile.alloc_fragment' op has no register layout with an inverse; run tile-infer-layouts first

//--- ops.mlir

// Shared buffers in program order, each at a 128-byte aligned offset:
// 10 x f16 = 20 bytes at 0, 3x5 x f32 = 60 at 128, 4 x index (64 bits) = 32
// at 256, 7 x i8 at 384: 391 bytes. A fill is a block-strided loop between
// barriers.
// CHECK-LABEL: func.func @shared_offsets
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[C384:.*]] = arith.constant 384 : index
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: tile.kernel (%{{.*}}) in (1) threads(64) attributes {tile.shared_bytes = 391 : i64} {
// CHECK-DAG: %[[D:.*]] = memref.view %{{.*}}[%[[C384]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<7xi8, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[C:.*]] = memref.view %{{.*}}[%[[C256]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xindex, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[B:.*]] = memref.view %{{.*}}[%[[C128]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x5xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[A:.*]] = memref.view %{{.*}}[%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<10xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT: scf.for %[[I:.*]] = %[[TID]] to %[[C10]] step %[[C64]] {
// CHECK-NEXT: %[[R:.*]] = arith.remui %[[I]], %[[C10]] : index
// CHECK-NEXT: memref.store %[[ZERO]], %[[A]][%[[R]]] : memref<10xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[B]][%{{.*}}, %{{.*}}] : memref<3x5xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[C]][%{{.*}}] : memref<4xindex, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[D]][%{{.*}}] : memref<7xi8, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.
func.func @shared_offsets() {
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<10xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<3x5xf32, #tile.scope<shared>>
    %c = tile.alloc_shared : memref<4xindex, #tile.scope<shared>>
    %d = tile.alloc_shared : memref<7xi8, #tile.scope<shared>>
    tile.clear %a : memref<10xf16, #tile.scope<shared>>
    tile.clear %b : memref<3x5xf32, #tile.scope<shared>>
    tile.clear %c : memref<4xindex, #tile.scope<shared>>
    tile.clear %d : memref<7xi8, #tile.scope<shared>>
  }
  return
}

// -----

// Fragments hold ceil(elements / threads) registers per thread; a fill
// stores each register. Local buffers keep their shape and are filled by a
// loop nest in every thread. No shared memory, no barrier.
// CHECK-LABEL: func.func @registers
// CHECK-SAME: (%[[X:[^ ,:()]+]]: f32, %[[Y:[^ ,:()]+]]: i32)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: tile.kernel (%{{.*}}) in (1) threads(128) attributes {tile.shared_bytes = 0 : i64} {
// CHECK-DAG: %[[L:.*]] = memref.alloca() : memref<2x3xf32>
// CHECK-DAG: %[[G:.*]] = memref.alloca() : memref<2xi32>
// CHECK-DAG: %[[F:.*]] = memref.alloca() : memref<1xf32>
// CHECK: memref.store %[[X]], %[[F]][%[[C0]]] : memref<1xf32>
// CHECK-NEXT: memref.store %[[Y]], %[[G]][%[[C0]]] : memref<2xi32>
// CHECK-NEXT: memref.store %[[Y]], %[[G]][%[[C1]]] : memref<2xi32>
// CHECK-NEXT: scf.for %[[I:.*]] =
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK-NEXT: memref.store %[[X]], %[[L]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: gpu.dynamic_shared_memory
func.func @registers(%x: f32, %y: i32) {
  tile.kernel (%bx) in (1) threads(128) {
    %F = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %G = tile.alloc_fragment : memref<16x16xi32, #tile.scope<fragment>>
    %L = tile.alloc_local : memref<2x3xf32, #tile.scope<local>>
    tile.fill %F, %x : memref<64xf32, #tile.scope<fragment>>, f32
    tile.fill %G, %y : memref<16x16xi32, #tile.scope<fragment>>, i32
    tile.fill %L, %x : memref<2x3xf32, #tile.scope<local>>, f32
  }
  return
}

// -----

// A 32x16x32 gemm in one warp: 2 x 2 m16n8 atoms (16 accumulator registers),
// 2 k-steps. Each k-step loads 2 A fragments (ldmatrix x4) and the 2 B
// fragments of the two n8 atoms with one ldmatrix x4 (transposed: B is K x N
// row-major; rows 0-1 of the result are the first atom's, 2-3 the
// second's), then runs 4 mma.sync: 4 + 2 ldmatrix and 8 mma.sync in all.
// clear_accum zeroes the registers.
// A is at shared offset 0, B (32x32 f16 = 2048 bytes later) at 2048.
// CHECK-LABEL: func.func @gemm_one_warp
// CHECK-DAG: %[[C2048:.*]] = arith.constant 2048 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: tile.kernel (%{{.*}}) in (1) threads(32) attributes {tile.shared_bytes = 3072 : i64} {
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<16xf32>
// CHECK: %[[BS:.*]] = memref.view %{{.*}}[%[[C2048]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf16, #gpu.address_space<workgroup>>
// CHECK: %[[AS:.*]] = memref.view %{{.*}}[%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x32xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-16: memref.store %[[ZERO]], %[[ACC]][%{{.*}}] : memref<16xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %{{.*}} : index
// CHECK: %[[A0:.*]] = nvgpu.ldmatrix %[[AS]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[A1:.*]] = nvgpu.ldmatrix %[[AS]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[BB:.*]] = nvgpu.ldmatrix %[[BS]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[B00:.*]] = vector.extract %[[BB]][0, 0] : f16 from vector<4x2xf16>
// CHECK: %[[B0:.*]] = vector.from_elements %[[B00]], %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf16>
// CHECK: %[[B10:.*]] = vector.extract %[[BB]][2, 0] : f16 from vector<4x2xf16>
// CHECK: %[[B1:.*]] = vector.from_elements %[[B10]], %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf16>
// CHECK: %[[C00:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK: %[[D00:.*]] = nvgpu.mma.sync(%[[A0]], %[[B0]], %[[C00]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: %[[E:.*]] = vector.extract %[[D00]][0, 0] : f32 from vector<2x2xf32>
// CHECK: memref.store %[[E]], %[[ACC]][%[[C0]]] : memref<16xf32>
// CHECK: nvgpu.mma.sync(%[[A0]], %[[B1]], %{{.*}})
// CHECK: nvgpu.mma.sync(%[[A1]], %[[B0]], %{{.*}})
// CHECK: nvgpu.mma.sync(%[[A1]], %[[B1]], %{{.*}})
// CHECK-COUNT-3: nvgpu.ldmatrix
// CHECK-COUNT-4: nvgpu.mma.sync
// CHECK-NOT: nvgpu.
// CHECK-NOT: tile.gemm
func.func @gemm_one_warp() {
  tile.kernel (%bx) in (1) threads(32) {
    %As = tile.alloc_shared : memref<32x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x16xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<32x16xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %Cf {clear_accum} : memref<32x32xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<32x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Transposed operands swap ldmatrix's transposition: A stored K x M is read
// with transpose, B stored N x K without.
// CHECK-LABEL: func.func @gemm_transposed
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<4xf32>
// CHECK: %[[BS:.*]] = memref.view {{.*}} to memref<8x16xf16, #gpu.address_space<workgroup>>
// CHECK: %[[AS:.*]] = memref.view {{.*}} to memref<16x16xf16, #gpu.address_space<workgroup>>
// CHECK: %[[A:.*]] = nvgpu.ldmatrix %[[AS]]{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK: %[[B:.*]] = nvgpu.ldmatrix %[[BS]]{{.*}} {numTiles = 2 : i32, transpose = false}
// CHECK: nvgpu.mma.sync(%[[A]], %[[B]], %{{.*}}) {mmaShape = [16, 8, 16]}
// CHECK-NOT: nvgpu.
func.func @gemm_transposed() {
  tile.kernel (%bx) in (1) threads(32) {
    %As = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<8x16xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C {transpose_a, transpose_b} : memref<16x16xf16, #tile.scope<shared>>, memref<8x16xf16, #tile.scope<shared>>, memref<16x8xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// 4 warps on 64x64x16 (square: 2x2 warps of 32x32): 32 registers per
// thread, 2 A + 4 B fragments (2 ldmatrix x4) and 2 x 4 mma.sync per warp.
// CHECK-LABEL: func.func @gemm_four_warps
// CHECK: memref.alloca() : memref<32xf32>
// CHECK-COUNT-2: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK-COUNT-2: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-COUNT-8: nvgpu.mma.sync
// CHECK-NOT: nvgpu.
func.func @gemm_four_warps() {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x16xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x64xf16, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C : memref<64x16xf16, #tile.scope<shared>>, memref<16x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Global <-> shared copies: each thread moves 8-element (16-byte) chunks
// t, t + 64, ... with vector.load / vector.store {alignment = 16} when the
// chunk is inside the tensor and aligned, element by element otherwise;
// barriers before and after.
// CHECK-LABEL: func.func @copy_vectors
// CHECK-SAME: (%[[A:[^ ,:()]+]]: memref<?x?xf16>, %[[C:[^ ,:()]+]]: memref<?x?xf16>, %{{.*}}: index, %{{.*}}: index)
// CHECK: %[[S:.*]] = memref.view {{.*}} to memref<16x32xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: scf.for %{{.*}} = %[[TID]] to %{{.*}} step %{{.*}} {
// CHECK: scf.if
// CHECK-NEXT: %[[V:.*]] = vector.load %[[A]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK-NEXT: vector.store %[[V]], %[[S]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: } else {
// CHECK-COUNT-8: memref.store %{{.*}}, %[[S]]
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.barrier
// CHECK: %[[W:.*]] = vector.load %[[S]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x32xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: vector.store %[[W]], %[[C]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK: gpu.barrier
// CHECK-NOT: vector.load
func.func @copy_vectors(%A: memref<?x?xf16>, %C: memref<?x?xf16>, %m: index, %k: index) {
  tile.kernel (%bx) in (1) threads(64) {
    %S = tile.alloc_shared : memref<16x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, %k] to %S : memref<?x?xf16> to memref<16x32xf16, #tile.scope<shared>>
    tile.copy %S to %C[%m, %k] : memref<16x32xf16, #tile.scope<shared>> to memref<?x?xf16>
  }
  return
}

// -----

// A copy into shared memory of more than one chunk a thread (40x32 halves:
// 160 chunks on 64 threads, 3 for the first 32 threads and 2 for the others)
// tests once whether the whole tile is inside the tensor and aligned; if so,
// each thread issues its loads before its stores (the third load and store
// only where that chunk exists), else the checked loop moves the chunks.
// CHECK-LABEL: func.func @copy_whole_tile
// CHECK-SAME: (%[[A:[^ ,:()]+]]: memref<?x?xf16>,
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf16>
// CHECK: %[[S:.*]] = memref.view {{.*}} to memref<40x32xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.if %{{.*}} {
// CHECK: %[[V0:.*]] = vector.load %[[A]][{{.*}}] {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK: %[[V1:.*]] = vector.load %[[A]][{{.*}}] {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c160
// CHECK-NEXT: %[[V2:.*]] = scf.if %[[IN]] -> (vector<8xf16>) {
// CHECK-NEXT: vector.load %[[A]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[ZERO]]
// CHECK: vector.store %[[V0]], %[[S]]
// CHECK: vector.store %[[V1]], %[[S]]
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: vector.store %[[V2]], %[[S]]
// CHECK: } else {
// CHECK: scf.for
// CHECK: gpu.barrier
func.func @copy_whole_tile(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(64) {
    %S = tile.alloc_shared : memref<40x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %S : memref<?x?xf16> to memref<40x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

// Consecutive copies from global memory into different shared buffers go
// between one pair of barriers: one test that both tiles are whole, then
// the 2 + 2 loads of a thread before its stores (else each copy's checked
// loop). A load of global memory right after them (a row's scalar) is
// issued before them.
// CHECK-LABEL: func.func @copy_group
// CHECK-SAME: (%[[A:[^ ,:()]+]]: memref<?x?xf16>, %[[B:[^ ,:()]+]]: memref<?x?xf16>, %[[SC:[^ ,:()]+]]: memref<?xf32>
// CHECK: gpu.barrier
// CHECK-NEXT: memref.load %[[SC]]
// CHECK-NOT: gpu.barrier
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-2: vector.load %[[A]]
// CHECK-COUNT-2: vector.load %[[B]]
// CHECK-COUNT-4: vector.store
// CHECK-NEXT: } else {
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.atomic_rmw
func.func @copy_group(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %S: memref<?xf32>, %m: index) {
  tile.kernel (%bx) in (1) threads(32) {
    %X = tile.alloc_shared : memref<16x32xf16, #tile.scope<shared>>
    %Y = tile.alloc_shared : memref<16x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %X : memref<?x?xf16> to memref<16x32xf16, #tile.scope<shared>>
    tile.copy %B[%m, 0] to %Y : memref<?x?xf16> to memref<16x32xf16, #tile.scope<shared>>
    %s = memref.load %S[%m] : memref<?xf32>
    tile.atomic_add %S[%m], %s : memref<?xf32>, f32
  }
  return
}

// -----

// Copies into the same shared buffer keep a barrier between them (a thread
// of the second may write what a thread of the first wrote).
// CHECK-LABEL: func.func @copy_same_buffer
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: gpu.barrier
func.func @copy_same_buffer(%A: memref<?x?xf16>, %m: index) {
  tile.kernel (%bx) in (1) threads(64) {
    %X = tile.alloc_shared : memref<16x32xf16, #tile.scope<shared>>
    tile.copy %A[%m, 0] to %X : memref<?x?xf16> to memref<16x32xf16, #tile.scope<shared>>
    tile.copy %A[0, %m] to %X : memref<?x?xf16> to memref<16x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

// No 16-byte vectors where the shared side is not 16-byte aligned: a region
// starting 4 halves (8 bytes) into the rows, rows of 12 halves (24 bytes).
// CHECK-LABEL: func.func @copy_unaligned_shared
// CHECK-NOT: vector.
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<16x16xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: vector.
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<16x12xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: vector.
func.func @copy_unaligned_shared(%A: memref<?x?xf16>) {
  tile.kernel (%bx) in (1) threads(32) {
    %S = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %T = tile.alloc_shared : memref<16x12xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [16, 8] to %S[0, 4] : memref<?x?xf16> to memref<16x16xf16, #tile.scope<shared>>
    tile.copy %A[0, 0] [16, 8] to %T[0, 0] : memref<?x?xf16> to memref<16x12xf16, #tile.scope<shared>>
  }
  return
}

// -----

// Copies into and out of a fragment: each thread moves its own registers
// (2 of 8x16 over 64 threads) at the indices the layout's inverse gives;
// global ends are bounds-checked (pad 0 when reading), values converted;
// writes into shared memory are bracketed by barriers.
// CHECK-LABEL: func.func @fragment_copies
// CHECK-SAME: (%[[A:[^ ,:()]+]]: memref<?x?xf32>, %[[C:[^ ,:()]+]]: memref<?x?xf16>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[F:.*]] = memref.alloca() : memref<2xf32>
// CHECK: %[[S:.*]] = memref.view {{.*}} to memref<8x16xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.thread_id x
// CHECK: %[[V0:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK: memref.load %[[A]]
// CHECK: memref.store %[[V0]], %[[F]][%[[C0]]] : memref<2xf32>
// CHECK: %[[V1:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK: memref.store %[[V1]], %[[F]][%[[C1]]] : memref<2xf32>
// CHECK-NEXT: gpu.barrier
// CHECK: %[[R0:.*]] = memref.load %[[F]][%[[C0]]] : memref<2xf32>
// CHECK: memref.store %[[R0]], %[[S]][%{{.*}}, %{{.*}}] : memref<8x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[R1:.*]] = memref.load %[[F]][%[[C1]]] : memref<2xf32>
// CHECK: memref.store %[[R1]], %[[S]][%{{.*}}, %{{.*}}] : memref<8x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: %[[G0:.*]] = memref.load %[[F]][%[[C0]]] : memref<2xf32>
// CHECK-NEXT: %[[H0:.*]] = arith.truncf %[[G0]] : f32 to f16
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[H0]], %[[C]][%{{.*}}, %{{.*}}] : memref<?x?xf16>
// CHECK: %[[G1:.*]] = memref.load %[[F]][%[[C1]]] : memref<2xf32>
// CHECK-NEXT: %[[H1:.*]] = arith.truncf %[[G1]] : f32 to f16
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[H1]], %[[C]][%{{.*}}, %{{.*}}] : memref<?x?xf16>
// CHECK-NOT: gpu.barrier
func.func @fragment_copies(%A: memref<?x?xf32>, %C: memref<?x?xf16>) {
  tile.kernel (%bx) in (1) threads(64) {
    %F = tile.alloc_fragment : memref<8x16xf32, #tile.scope<fragment>>
    %S = tile.alloc_shared : memref<8x16xf32, #tile.scope<shared>>
    tile.copy %A[0, 0] to %F : memref<?x?xf32> to memref<8x16xf32, #tile.scope<fragment>>
    tile.copy %F to %S : memref<8x16xf32, #tile.scope<fragment>> to memref<8x16xf32, #tile.scope<shared>>
    tile.copy %F to %C[0, 0] : memref<8x16xf32, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}

// -----

// tile.parallel over a fragment runs the body once per register of each
// thread, the fragment accesses becoming register accesses. Registers that
// hold no element (32 elements over 64 threads) are guarded. A body that
// writes shared memory is bracketed by barriers; one over no fragment is a
// block-strided loop.
// CHECK-LABEL: func.func @parallel
// CHECK-SAME: (%[[X:[^ ,:()]+]]: f32)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[G:.*]] = memref.alloca() : memref<1xf32>
// CHECK: %[[F:.*]] = memref.alloca() : memref<2xf32>
// CHECK: %[[S:.*]] = memref.view {{.*}} to memref<8x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[L0:.*]] = memref.load %[[F]][%[[C0]]] : memref<2xf32>
// CHECK-NEXT: %[[M0:.*]] = arith.mulf %[[L0]], %[[X]] : f32
// CHECK-NEXT: memref.store %[[M0]], %[[F]][%[[C0]]] : memref<2xf32>
// CHECK-NEXT: %[[L1:.*]] = memref.load %[[F]][%[[C1]]] : memref<2xf32>
// CHECK-NEXT: %[[M1:.*]] = arith.mulf %[[L1]], %[[X]] : f32
// CHECK-NEXT: memref.store %[[M1]], %[[F]][%[[C1]]] : memref<2xf32>
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[HOLDS:.*]] = arith.cmpi ult, %[[TID]], %[[C32]] : index
// CHECK-NEXT: scf.if %[[HOLDS]] {
// CHECK-NEXT: %[[L:.*]] = memref.load %[[G]][%[[C0]]] : memref<1xf32>
// CHECK-NEXT: %[[XL:.*]] = arith.mulf %[[L]], %{{.*}} : f32
// CHECK-NEXT: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[XL]]) : (f32) -> f32
// CHECK-NEXT: memref.store %[[E]], %[[G]][%[[C0]]] : memref<1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[F]][%[[C0]]] : memref<2xf32>
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: memref.load %[[F]][%[[C1]]] : memref<2xf32>
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[TID2:.*]] = gpu.thread_id x
// CHECK-NEXT: scf.for %[[I:.*]] = %[[TID2]] to %[[C128]] step %[[C64]] {
// CHECK: %[[V:.*]] = memref.load %[[S]]
// CHECK-NEXT: %[[W:.*]] = arith.addf %[[V]], %[[X]] : f32
// CHECK-NEXT: memref.store %[[W]], %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
func.func @parallel(%x: f32) {
  tile.kernel (%bx) in (1) threads(64) {
    %F = tile.alloc_fragment : memref<8x16xf32, #tile.scope<fragment>>
    %G = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    %S = tile.alloc_shared : memref<8x16xf32, #tile.scope<shared>>
    tile.parallel (%i, %j) in (8, 16) {
      %v = memref.load %F[%i, %j] : memref<8x16xf32, #tile.scope<fragment>>
      %w = arith.mulf %v, %x : f32
      memref.store %w, %F[%i, %j] : memref<8x16xf32, #tile.scope<fragment>>
    }
    tile.parallel (%i) in (32) {
      %v = memref.load %G[%i] : memref<32xf32, #tile.scope<fragment>>
      %w = math.exp %v : f32
      memref.store %w, %G[%i] : memref<32xf32, #tile.scope<fragment>>
    }
    tile.parallel (%i, %j) in (8, 16) {
      %v = memref.load %F[%i, %j] : memref<8x16xf32, #tile.scope<fragment>>
      memref.store %v, %S[%i, %j] : memref<8x16xf32, #tile.scope<shared>>
    }
    tile.parallel (%i, %j) in (8, 16) {
      %v = memref.load %S[%i, %j] : memref<8x16xf32, #tile.scope<shared>>
      %w = arith.addf %v, %x : f32
      memref.store %w, %S[%i, %j] : memref<8x16xf32, #tile.scope<shared>>
    }
  }
  return
}

// -----

// Atomics: a scalar is one memref.atomic_rmw per thread, a fragment tile one
// per register, a shared tile a block-strided loop (after a barrier); all
// bounds-checked against the global target. Float and integer kinds.
// CHECK-LABEL: func.func @atomics
// CHECK-SAME: (%[[OUT:[^ ,:()]+]]: memref<?x?xf32>, %[[IOUT:[^ ,:()]+]]: memref<?xi32>, %[[X:[^ ,:()]+]]: f32, %[[Y:[^ ,:()]+]]: i32)
// CHECK: %[[F:.*]] = memref.alloca() : memref<2xf32>
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw addf %[[X]], %[[OUT]][%{{.*}}, %{{.*}}] : (f32, memref<?x?xf32>) -> f32
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw maxs %[[Y]], %[[IOUT]][%{{.*}}] : (i32, memref<?xi32>) -> i32
// CHECK: scf.if
// CHECK-NEXT: memref.atomic_rmw mins %[[Y]], %[[IOUT]][%{{.*}}] : (i32, memref<?xi32>) -> i32
// CHECK: %[[R0:.*]] = memref.load %[[F]]
// CHECK: memref.atomic_rmw addf %[[R0]], %[[OUT]]
// CHECK: %[[R1:.*]] = memref.load %[[F]]
// CHECK: memref.atomic_rmw addf %[[R1]], %[[OUT]]
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.thread_id x
// CHECK-NEXT: scf.for
// CHECK: %[[V:.*]] = memref.load %{{.*}} : memref<8x16xf32, #gpu.address_space<workgroup>>
// CHECK: memref.atomic_rmw maximumf %[[V]], %[[OUT]]
// CHECK: memref.atomic_rmw minimumf %[[X]], %[[OUT]]
// CHECK-NOT: tile.atomic
func.func @atomics(%out: memref<?x?xf32>, %iout: memref<?xi32>, %x: f32, %y: i32) {
  tile.kernel (%bx) in (1) threads(64) {
    %F = tile.alloc_fragment : memref<8x16xf32, #tile.scope<fragment>>
    %S = tile.alloc_shared : memref<8x16xf32, #tile.scope<shared>>
    tile.atomic_add %out[1, 2], %x : memref<?x?xf32>, f32
    tile.atomic_max %iout[3], %y : memref<?xi32>, i32
    tile.atomic_min %iout[4], %y : memref<?xi32>, i32
    tile.atomic_add %out[0, 0], %F : memref<?x?xf32>, memref<8x16xf32, #tile.scope<fragment>>
    tile.atomic_max %out[8, 0], %S : memref<?x?xf32>, memref<8x16xf32, #tile.scope<shared>>
    tile.atomic_min %out[5, 5], %x : memref<?x?xf32>, f32
  }
  return
}

// -----

// Diagnostics. A fragment whose elements are spread over the threads (here
// by a pinned layout): plain memref accesses to it outside a tile.parallel
// over its elements are rejected where they are. (Without a layout of its
// own it would be replicated: lower-ops-nvvm-scalar-fragment.mlir.)
func.func @fragment_outside_parallel(%out: memref<?xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %c0 = arith.constant 0 : index
    %F = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    tile.annotate_layout %F layout(#tile.fragment<[32], threads = 32, (d0) -> (d0 mod 32, d0 floordiv 32), inverse = (d0, d1) -> (d1 * 32 + d0)>) : memref<32xf32, #tile.scope<fragment>>
    tile.clear %F : memref<32xf32, #tile.scope<fragment>>
    // expected-error @below {{'memref.load' op reads or writes a fragment outside a tile.parallel loop over its elements; a fragment's elements are spread over the block's threads (copy it to a shared buffer first)}}
    %v = memref.load %F[%c0] : memref<32xf32, #tile.scope<fragment>>
    memref.store %v, %out[%c0] : memref<?xf32>
  }
  return
}

// -----

// A tile.parallel that writes a fragment elsewhere than at its indices
// (here transposed) has no per-register lowering; its accesses are not
// reported again.
func.func @parallel_store_not_at_indices(%x: f32) {
  tile.kernel (%bx) in (1) threads(32) {
    %F = tile.alloc_fragment : memref<8x8xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.parallel' op cannot be lowered for target 'sm_80'}}
    tile.parallel (%i, %j) in (8, 8) {
      memref.store %x, %F[%j, %i] : memref<8x8xf32, #tile.scope<fragment>>
    }
  }
  return
}

// -----

// Copies of local buffers, copies of part of a fragment and atomics of a
// local tile have no lowering either. Each is reported at its location
// (and the pass does not loop on them).
func.func @unlowered_ops(%A: memref<?xf32>) {
  tile.kernel (%bx) in (1) threads(32) {
    %L = tile.alloc_local : memref<4xf32, #tile.scope<local>>
    %F = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.copy' op cannot be lowered for target 'sm_80'}}
    tile.copy %A[0] to %L : memref<?xf32> to memref<4xf32, #tile.scope<local>>
    // expected-error @below {{'tile.copy' op cannot be lowered for target 'sm_80'}}
    tile.copy %A[0] [32] to %F[16] : memref<?xf32> to memref<64xf32, #tile.scope<fragment>>
    // expected-error @below {{'tile.atomic_add' op cannot be lowered for target 'sm_80'}}
    tile.atomic_add %A[0], %L : memref<?xf32>, memref<4xf32, #tile.scope<local>>
  }
  return
}

// -----

// A pinned layout the lowering cannot walk: without an inverse, or with a
// thread holding more registers than ceil(elements * replicas / threads)
// (here 2 of the 64 elements on each of threads 0 .. 31).
func.func @pinned_without_inverse(%x: f32) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_fragment' op has no register layout with an inverse; run tile-infer-layouts first}}
    %F = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.annotate_layout %F layout(#tile.fragment<[64], threads = 32, (d0) -> (d0 mod 32, d0 floordiv 32)>) : memref<64xf32, #tile.scope<fragment>>
    tile.fill %F, %x : memref<64xf32, #tile.scope<fragment>>, f32
  }
  return
}

// -----

func.func @pinned_not_walkable(%in: memref<64xf32>, %out: memref<256xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_fragment' op has a register layout this lowering cannot walk: it needs the 64 elements, one each, in the slots (thread t, register r) with r * 128 + t < 64}}
    %F = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.annotate_layout %F layout(#tile.fragment<[64], threads = 128, (d0) -> (d0 floordiv 2 + 64, d0 mod 2), inverse = (d0, d1) -> ((d0 - 64) * 2 + d1)>) : memref<64xf32, #tile.scope<fragment>>
    tile.copy %in[0] to %F : memref<64xf32> to memref<64xf32, #tile.scope<fragment>>
    tile.copy %F to %out[0] : memref<64xf32, #tile.scope<fragment>> to memref<256xf32>
  }
  return
}

// -----

// i8 x i8 -> i32: m16n8k32 atoms, 4 int8 to a 32-bit register. A (M x K)
// and B given as N x K are K-contiguous, so ldmatrix (16-byte rows) loads
// them: one x4 for A, one x4 for B's two n8 atoms; 2 mma.sync.
// CHECK-LABEL: func.func @gemm_i8_nt
// CHECK: memref.alloca() : memref<8xi32>
// CHECK: %[[A:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x32xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x32xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// CHECK: %[[B0:.*]] = vector.from_elements {{.*}} : vector<2x4xi8>
// CHECK: %[[B1:.*]] = vector.from_elements {{.*}} : vector<2x4xi8>
// CHECK: nvgpu.mma.sync(%[[A]], %[[B0]], %{{.*}}) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
// CHECK: nvgpu.mma.sync(%[[A]], %[[B1]], %{{.*}}) {mmaShape = [16, 8, 32]}
// CHECK-NOT: nvgpu.
func.func @gemm_i8_nt() {
  tile.kernel (%bx) in (1) threads(32) {
    %As = tile.alloc_shared : memref<16x32xi8, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x32xi8, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x16xi32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C {clear_accum, transpose_b} : memref<16x32xi8, #tile.scope<shared>>, memref<16x32xi8, #tile.scope<shared>>, memref<16x16xi32, #tile.scope<fragment>>
  }
  return
}

// -----

// B stored K x N (N-contiguous): ldmatrix cannot transpose 8-bit elements,
// so B's fragments load element by element (4 consecutive k of one column a
// register); A still by ldmatrix.
// CHECK-LABEL: func.func @gemm_i8_nn
// CHECK: nvgpu.ldmatrix %{{.*}} -> vector<4x4xi8>
// CHECK-NOT: nvgpu.ldmatrix
// CHECK-COUNT-8: memref.load %{{.*}} : memref<32x8xi8, #gpu.address_space<workgroup>>
// CHECK: vector.from_elements {{.*}} : vector<2x4xi8>
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 32]}
func.func @gemm_i8_nn() {
  tile.kernel (%bx) in (1) threads(32) {
    %As = tile.alloc_shared : memref<16x32xi8, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x8xi8, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x8xi32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C {clear_accum} : memref<16x32xi8, #tile.scope<shared>>, memref<32x8xi8, #tile.scope<shared>>, memref<16x8xi32, #tile.scope<fragment>>
  }
  return
}

// -----

// f32 x f32 -> f32 runs as tf32: m16n8k8 atoms, one element a register;
// ldmatrix (16-byte rows of 4 elements) loads the K-contiguous operands.
// CHECK-LABEL: func.func @gemm_tf32_nt
// CHECK: %[[A:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x8xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x8xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// CHECK: nvgpu.mma.sync(%[[A]], %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.mma.sync(%[[A]], %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// CHECK-NOT: nvgpu.
func.func @gemm_tf32_nt() {
  tile.kernel (%bx) in (1) threads(32) {
    %As = tile.alloc_shared : memref<16x8xf32, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<16x8xf32, #tile.scope<shared>>
    %C = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %As, %Bs, %C {clear_accum, transpose_b} : memref<16x8xf32, #tile.scope<shared>>, memref<16x8xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

//--- no-infer.mlir

// Fragments need a layout with an inverse (tile-infer-layouts gives one).
func.func @missing_layout(%x: f32) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_fragment' op has no register layout with an inverse; run tile-infer-layouts first}}
    %F = tile.alloc_fragment : memref<32xf32, #tile.scope<fragment>>
    tile.fill %F, %x : memref<32xf32, #tile.scope<fragment>>, f32
  }
  return
}

// -----

// A tile.layout without an inverse is no better.
func.func @layout_without_inverse(%x: f32) {
  tile.kernel (%bx) in (1) threads(32) {
    // expected-error @below {{'tile.alloc_fragment' op has no register layout with an inverse; run tile-infer-layouts first}}
    %F = tile.alloc_fragment {tile.layout = #tile.fragment<[32], threads = 32, (d0) -> (d0, 0)>} : memref<32xf32, #tile.scope<fragment>>
    tile.fill %F, %x : memref<32xf32, #tile.scope<fragment>>, f32
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
