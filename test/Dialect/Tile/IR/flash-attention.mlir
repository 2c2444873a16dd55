// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-verify-target=target=sm_90a | FileCheck %s

// A whole kernel that uses the ops together the way a program does: the
// forward pass of flash attention, O = softmax(Q K^T / sqrt(d)) V, for
// Q, K, V, O of shape [batch, seq, heads, 128] in f16, 64-row query blocks.

// CHECK-LABEL: func.func @flash_attention
// CHECK-SAME: (%[[Q:.*]]: memref<?x?x?x128xf16>, %[[K:.*]]: memref<?x?x?x128xf16>, %[[V:.*]]: memref<?x?x?x128xf16>, %[[O:.*]]: memref<?x?x?x128xf16>, %[[LSE:.*]]: memref<?x?xf32>)
func.func @flash_attention(%Q: memref<?x?x?x128xf16>, %K: memref<?x?x?x128xf16>, %V: memref<?x?x?x128xf16>, %O: memref<?x?x?x128xf16>, %Lse: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %batch = memref.dim %Q, %c0 : memref<?x?x?x128xf16>
  %seq = memref.dim %Q, %c1 : memref<?x?x?x128xf16>
  %heads = memref.dim %Q, %c2 : memref<?x?x?x128xf16>
  %blocks = arith.ceildivui %seq, %c64 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.0883883461 : f32
  // CHECK: tile.kernel (%[[BX:.*]], %[[BY:.*]], %[[BZ:.*]]) in (%{{.*}}, %{{.*}}, %{{.*}}) threads(128) {
  tile.kernel (%bx, %by, %bz) in (%blocks, %heads, %batch) threads(128) {
    // CHECK: %[[QS:.*]] = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Qs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    // CHECK: %[[KS:.*]] = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Ks = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    // CHECK: %[[VS:.*]] = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Vs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    // CHECK: %[[S:.*]] = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %S = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // CHECK: %[[P:.*]] = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    %P = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    // CHECK: %[[ACC:.*]] = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    %Acc = tile.alloc_fragment : memref<64x128xf32, #tile.scope<fragment>>
    // CHECK: %[[MAX:.*]] = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %Max = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: %[[PREV:.*]] = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %Prev = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: %[[SUM:.*]] = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %Sum = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: %[[ROWSUM:.*]] = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %RowSum = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK: %[[TOTAL:.*]] = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    %Total = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    // CHECK: tile.annotate_layout %[[QS]] layout(#tile.swizzle<3, 4, 3>)
    tile.annotate_layout %Qs layout(#tile.swizzle<3, 4, 3>) : memref<64x128xf16, #tile.scope<shared>>
    // CHECK: tile.annotate_layout %[[KS]] layout(#tile.swizzle<3, 4, 3>)
    tile.annotate_layout %Ks layout(#tile.swizzle<3, 4, 3>) : memref<64x128xf16, #tile.scope<shared>>
    // CHECK: tile.annotate_layout %[[MAX]] layout(#tile.fragment<[64], threads = 128, (d0) -> (d0, 0), replicate = 2>)
    tile.annotate_layout %Max layout(#tile.fragment<[64], threads = 128, (d0) -> (d0, 0), replicate = 2>) : memref<64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %bx, %c64 : index
    // CHECK: tile.copy %[[Q]][%[[BZ]], %{{.*}}, %[[BY]], 0] [1, 64, 1, 128] to %[[QS]] {inst = #tile.copy_inst<tma>}
    tile.copy %Q[%bz, %m0, %by, 0] [1, 64, 1, 128] to %Qs {inst = #tile.copy_inst<tma>} : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.scope<shared>>
    // CHECK: tile.clear %[[ACC]]
    tile.clear %Acc : memref<64x128xf32, #tile.scope<fragment>>
    // CHECK: tile.clear %[[SUM]]
    tile.clear %Sum : memref<64xf32, #tile.scope<fragment>>
    // CHECK: tile.fill %[[MAX]], %{{.*}} : memref<64xf32, #tile.scope<fragment>>, f32
    tile.fill %Max, %neg_inf : memref<64xf32, #tile.scope<fragment>>, f32
    // CHECK: tile.pipelined %[[KB:.*]] = %{{.*}} to %{{.*}} step %{{.*}} num_stages = 2 attributes {order = array<i64: 1, 0, 2, 3, 4, 5, 6, 7, 8, 9>, stage = array<i64: 0, 1, 1, 1, 1, 1, 1, 1, 1, 1>} {
    tile.pipelined %kb = %c0 to %blocks step %c1 num_stages = 2 attributes {order = array<i64: 1, 0, 2, 3, 4, 5, 6, 7, 8, 9>, stage = array<i64: 0, 1, 1, 1, 1, 1, 1, 1, 1, 1>} {
      // CHECK-NEXT: %[[N0:.*]] = arith.muli %[[KB]]
      %n0 = arith.muli %kb, %c64 : index
      // CHECK-NEXT: tile.copy %[[K]][%[[BZ]], %[[N0]], %[[BY]], 0] [1, 64, 1, 128] to %[[KS]] {inst = #tile.copy_inst<cp_async>, pad = 0.000000e+00 : f16}
      tile.copy %K[%bz, %n0, %by, 0] [1, 64, 1, 128] to %Ks {inst = #tile.copy_inst<cp_async>, pad = 0.0 : f16} : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.scope<shared>>
      // CHECK-NEXT: tile.gemm %[[QS]], %[[KS]], %[[S]] {clear_accum, policy = #tile.policy<full_row>, transpose_b}
      tile.gemm %Qs, %Ks, %S {transpose_b, clear_accum, policy = #tile.policy<full_row>} : memref<64x128xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
      // CHECK-NEXT: tile.copy %[[MAX]] to %[[PREV]]
      tile.copy %Max to %Prev : memref<64xf32, #tile.scope<fragment>> to memref<64xf32, #tile.scope<fragment>>
      // CHECK-NEXT: tile.reduce max %[[S]] into %[[MAX]] dim = 1 {clear = false}
      tile.reduce max %S into %Max dim = 1 {clear = false} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
      // CHECK-NEXT: tile.parallel (%[[I:.*]], %[[J:.*]]) in (64, 64) {
      tile.parallel (%i, %j) in (64, 64) {
        %s = memref.load %S[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
        %m = memref.load %Max[%i] : memref<64xf32, #tile.scope<fragment>>
        %d = arith.subf %s, %m : f32
        %x = arith.mulf %d, %scale : f32
        %p = math.exp2 %x : f32
        memref.store %p, %S[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      }
      // CHECK: tile.reduce sum %[[S]] into %[[ROWSUM]] dim = 1 :
      tile.reduce sum %S into %RowSum dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
      // CHECK-NEXT: tile.parallel (%[[I2:.*]], %[[J2:.*]]) in (64, 128) {
      tile.parallel (%i, %j) in (64, 128) {
        %prev = memref.load %Prev[%i] : memref<64xf32, #tile.scope<fragment>>
        %m = memref.load %Max[%i] : memref<64xf32, #tile.scope<fragment>>
        %d = arith.subf %prev, %m : f32
        %x = arith.mulf %d, %scale : f32
        %r = math.exp2 %x : f32
        %a = memref.load %Acc[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
        %ra = arith.mulf %a, %r : f32
        memref.store %ra, %Acc[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      }
      // CHECK: tile.copy %[[S]] to %[[P]] :
      tile.copy %S to %P : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf16, #tile.scope<fragment>>
      // CHECK-NEXT: tile.copy %[[V]][%[[BZ]], %[[N0]], %[[BY]], 0] [1, 64, 1, 128] to %[[VS]] :
      tile.copy %V[%bz, %n0, %by, 0] [1, 64, 1, 128] to %Vs : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.scope<shared>>
      // CHECK-NEXT: tile.gemm %[[P]], %[[VS]], %[[ACC]] :
      tile.gemm %P, %Vs, %Acc : memref<64x64xf16, #tile.scope<fragment>>, memref<64x128xf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>
    // CHECK-NEXT: }
    }
    // CHECK: tile.reduce sum %[[ROWSUM]] into %[[TOTAL]] dim = 0 :
    tile.reduce sum %RowSum into %Total dim = 0 : memref<64xf32, #tile.scope<fragment>> into memref<1xf32, #tile.scope<local>>
    %t = memref.load %Total[%c0] : memref<1xf32, #tile.scope<local>>
    // CHECK: tile.atomic_add %[[LSE]][%[[BZ]], %[[BY]]], %{{.*}} : memref<?x?xf32>, f32
    tile.atomic_add %Lse[%bz, %by], %t : memref<?x?xf32>, f32
    // The rank must match the target's, so reshape through a 1x64 view.
    // CHECK: %[[MAX2:.*]] = memref.expand_shape %[[MAX]] {{\[\[}}0, 1]] output_shape [1, 64]
    // CHECK-NEXT: tile.atomic_max %[[LSE]][%[[BZ]], %{{.*}}], %[[MAX2]] : memref<?x?xf32>, memref<1x64xf32, #tile.scope<fragment>>
    %Max2 = memref.expand_shape %Max [[0, 1]] output_shape [1, 64] : memref<64xf32, #tile.scope<fragment>> into memref<1x64xf32, #tile.scope<fragment>>
    tile.atomic_max %Lse[%bz, %m0], %Max2 : memref<?x?xf32>, memref<1x64xf32, #tile.scope<fragment>>
    // CHECK: tile.copy %[[ACC]] to %[[O]][%[[BZ]], %{{.*}}, %[[BY]], 0] [1, 64, 1, 128] : memref<64x128xf32, #tile.scope<fragment>> to memref<?x?x?x128xf16>
    tile.copy %Acc to %O[%bz, %m0, %by, 0] [1, 64, 1, 128] : memref<64x128xf32, #tile.scope<fragment>> to memref<?x?x?x128xf16>
  }
  return
}
