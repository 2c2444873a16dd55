// The register paths of tile-lower-ops on sm_80 / sm_90a for the layouts
// tile-infer-layouts spreads from gemm accumulators (flash attention's
// softmax): a row reduction folds each thread's registers and finishes with
// xor shuffles over the 4 lanes of a row (no shared scratch); a loop reads
// the row vector from the thread's own registers; the f16 copy of the
// accumulator feeds the next gemm as its A operand without ldmatrix; the
// replicated row vector is written out by its owner lanes only; tiles that
// nothing anchors but that are reduced along their rows get the row-split
// layout, so their reductions stay in registers too. Rows spread over
// several warps combine the warps' partials in a small shared buffer.
//
// RUN: tile-opt %s -split-input-file --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 --tile-plan-scratch=target=sm_80 --tile-lower-ops=target=sm_80 | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a --tile-plan-scratch=target=sm_90a --tile-lower-ops=target=sm_90a | FileCheck %s

// Shared memory: the two 64x64 f16 tiles, no scratch copies.
// CHECK-LABEL: func.func @softmax_rows
// CHECK: tile.kernel (%{{.*}}) in (1) threads(128) attributes {tile.shared_bytes = 16384 : i64}
// The copy into %Vs stores 16-byte vectors at swizzled columns (only gemms
// read it).
// CHECK: arith.xori
// CHECK: vector.store
// Gemm 1: A and B by ldmatrix x4 (B two n8 atoms at a time), 4 + 16 of
// them, and 32 mma.sync.
// CHECK-COUNT-20: nvgpu.ldmatrix
// CHECK-NOT: nvgpu.ldmatrix
// The row maximum: the 16 registers of a row register (15 maxima), then
// lanes xor 1 and 2.
// CHECK-COUNT-15: arith.maxnumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: arith.maxnumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: arith.maxnumf
// CHECK-COUNT-2: gpu.shuffle
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-COUNT-4: gpu.shuffle  xor
// Gemm 2: A straight from registers: no ldmatrix of A, only B's.
// CHECK-NOT: transpose = false
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK-NOT: transpose = false
// CHECK: arith.divf
// The row sums go out once per row: lane == owner lane.
// CHECK: %[[OWNS:.*]] = arith.cmpi eq, %thread_id_x{{.*}}, %{{.*}} : index
// CHECK: scf.if %[[OWNS]]
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @softmax_rows(%S: memref<64x64xf16>, %V: memref<64x64xf16>, %O: memref<64x64xf16>, %M: memref<64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %Ss = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    %o = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %sum = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.copy %S[0, 0] [64, 64] to %Ss[0, 0] [64, 64] : memref<64x64xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.copy %V[0, 0] [64, 64] to %Vs[0, 0] [64, 64] : memref<64x64xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.gemm %Ss, %Vs, %acc {clear_accum, policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.reduce max %acc into %m dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %mx = memref.load %m[%i] : memref<64xf32, #tile.scope<fragment>>
      %d = arith.subf %x, %mx : f32
      %e = math.exp2 %d : f32
      memref.store %e, %acc[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.reduce sum %acc into %sum dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.copy %acc[0, 0] [64, 64] to %p[0, 0] [64, 64] : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf16, #tile.scope<fragment>>
    tile.gemm %p, %Vs, %o {clear_accum, policy = #tile.policy<full_row>} : memref<64x64xf16, #tile.scope<fragment>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %o[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %s = memref.load %sum[%i] : memref<64xf32, #tile.scope<fragment>>
      %d = arith.divf %x, %s : f32
      memref.store %d, %o[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    %cst = arith.constant 1.0 : f32
    tile.copy %o[0, 0] [64, 64] to %O[0, 0] [64, 64] : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf16>
    tile.copy %sum[0] [64] to %M[0] [64] : memref<64xf32, #tile.scope<fragment>> to memref<64xf32>
  }
  return
}

// -----

// With 8 warps the default policy splits the 64x64 tile 2 x 4, which
// spreads each row over four warps: shuffles within each warp (lanes xor 1
// and 2), then the four warps' partials meet in a 4 x 64 f32 scratch (1 KB
// before the 8 KB A tile, between two barriers; one lane of each 4 writes),
// and every thread folds the four. The loop still reads the row vector from
// the thread's own registers.
// CHECK-LABEL: func.func @rows_over_warps
// CHECK: tile.shared_bytes = 9216
// CHECK-COUNT-2: gpu.shuffle  xor
// CHECK: %[[PART:.*]] = memref.view %{{.*}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[PART]][%{{.*}}] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[PART]]
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: memref.view
// CHECK: return
func.func @rows_over_warps(%S: memref<64x64xf16>, %O: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(256) {
    %Ss = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.copy %S[0, 0] [64, 64] to %Ss[0, 0] [64, 64] : memref<64x64xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.gemm %Ss, %Ss, %acc {clear_accum} : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.reduce max %acc into %m dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %mx = memref.load %m[%i] : memref<64xf32, #tile.scope<fragment>>
      %d = arith.subf %x, %mx : f32
      %e = math.exp2 %d : f32
      memref.store %e, %acc[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[0, 0] [64, 64] to %O[0, 0] [64, 64] : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf32>
  }
  return
}

// -----

// A tile that nothing anchors but that is reduced along its rows gets the
// row-split layout (each row on the 32 lanes of one warp, 4 columns at a
// time): the row maximum is 7 in-thread maxima (8 columns a lane) then
// shuffles over all five lane bits, per row register (4 rows per thread),
// with no shared memory.
// Each lane's 4 consecutive columns load as one 8-byte vector where they
// are inside the tensor and aligned (element by element otherwise), 8
// loads a thread, and store back the same way.
// CHECK-LABEL: func.func @row_split
// CHECK: tile.shared_bytes = 0
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: vector.load %arg0[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<16x256xf16>, vector<4xf16>
// CHECK-COUNT-7: arith.maxnumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-COUNT-15: gpu.shuffle
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-8: vector.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<16x256xf16>, vector<4xf16>
// CHECK: return
func.func @row_split(%X: memref<16x256xf16>, %Y: memref<16x256xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %x = tile.alloc_fragment : memref<16x256xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    tile.copy %X[0, 0] [16, 256] to %x[0, 0] [16, 256] : memref<16x256xf16> to memref<16x256xf32, #tile.scope<fragment>>
    tile.reduce max %x into %m dim = 1 : memref<16x256xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (16, 256) {
      %v = memref.load %x[%i, %j] : memref<16x256xf32, #tile.scope<fragment>>
      %mx = memref.load %m[%i] : memref<16xf32, #tile.scope<fragment>>
      %d = arith.subf %v, %mx : f32
      memref.store %d, %x[%i, %j] : memref<16x256xf32, #tile.scope<fragment>>
    }
    tile.copy %x[0, 0] [16, 256] to %Y[0, 0] [16, 256] : memref<16x256xf32, #tile.scope<fragment>> to memref<16x256xf16>
  }
  return
}

// -----

// An `if` inside the loop: the nested body is cloned per register too, its
// fragment accesses rewritten (the row maximum from the thread's registers,
// the element in place).
// CHECK-LABEL: func.func @if_in_parallel
// CHECK: tile.shared_bytes = 0
// CHECK: %[[POS:.*]] = arith.cmpf ogt, %[[V:.*]], %{{.*}} : f32
// CHECK-NEXT: scf.if %[[POS]] {
// CHECK-NEXT: %[[MX:.*]] = memref.load %{{.*}}[%c0] : memref<4xf32>
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[V]], %[[MX]] : f32
// CHECK-NEXT: memref.store %[[D]], %{{.*}}[%c0] : memref<32xf32>
// CHECK-NEXT: }
// CHECK-NOT: memref.view
// CHECK: return
func.func @if_in_parallel(%X: memref<16x256xf32>, %Y: memref<16x256xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %x = tile.alloc_fragment : memref<16x256xf32, #tile.scope<fragment>>
    %m = tile.alloc_fragment : memref<16xf32, #tile.scope<fragment>>
    tile.copy %X[0, 0] [16, 256] to %x[0, 0] [16, 256] : memref<16x256xf32> to memref<16x256xf32, #tile.scope<fragment>>
    tile.reduce max %x into %m dim = 1 : memref<16x256xf32, #tile.scope<fragment>> into memref<16xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (16, 256) {
      %v = memref.load %x[%i, %j] : memref<16x256xf32, #tile.scope<fragment>>
      %zero = arith.constant 0.0 : f32
      %pos = arith.cmpf ogt, %v, %zero : f32
      scf.if %pos {
        %mx = memref.load %m[%i] : memref<16xf32, #tile.scope<fragment>>
        %d = arith.subf %v, %mx : f32
        memref.store %d, %x[%i, %j] : memref<16x256xf32, #tile.scope<fragment>>
      }
    }
    tile.copy %x[0, 0] [16, 256] to %Y[0, 0] [16, 256] : memref<16x256xf32, #tile.scope<fragment>> to memref<16x256xf32>
  }
  return
}
