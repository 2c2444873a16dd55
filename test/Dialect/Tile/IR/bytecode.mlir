// RUN: tile-opt %s -emit-bytecode | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic -emit-bytecode | tile-opt | FileCheck %s

// Every op and attribute of the dialect survives a round trip through MLIR
// bytecode (properties, optional and default-valued attributes included).

// CHECK-LABEL: func.func @all_ops
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16>, %[[Q:.*]]: memref<?x?x?x64xf16>, %[[OUT:.*]]: memref<?x?xf32>, %[[N:.*]]: index, %[[X:.*]]: f32)
// CHECK-SAME: attributes {policy = #tile.policy<full_col>, reduce = #tile.reduce<abssum>}
func.func @all_ops(%A: memref<?x?xf16>, %Q: memref<?x?x?x64xf16>, %Out: memref<?x?xf32>, %n: index, %x: f32) attributes {policy = #tile.policy<full_col>, reduce = #tile.reduce<abssum>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: tile.kernel (%[[BX:.*]], %[[BY:.*]]) in (%[[N]], 2) threads(256) cluster(1, 2) attributes {tag = "k"} {
  tile.kernel (%bx, %by) in (%n, 2) threads(256) cluster(1, 2) attributes {tag = "k"} {
    // CHECK-NEXT: %[[AS:.*]] = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK-NEXT: %[[BS:.*]] = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    // CHECK-NEXT: %[[ES:.*]] = tile.alloc_shared : memref<64x2xi16, #tile.scope<shared>>
    %Es = tile.alloc_shared : memref<64x2xi16, #tile.scope<shared>>
    // CHECK-NEXT: %[[HS:.*]] = tile.alloc_shared : memref<64x16xf16, #tile.scope<shared>>
    %Hs = tile.alloc_shared : memref<64x16xf16, #tile.scope<shared>>
    // CHECK-NEXT: %[[CF:.*]] = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // CHECK-NEXT: %[[RF:.*]] = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %Rf = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    // CHECK-NEXT: %[[L:.*]] = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    %L = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    // CHECK-NEXT: tile.annotate_layout %[[AS]] layout(#tile.swizzle<2, 4, 3>)
    tile.annotate_layout %As layout(#tile.swizzle<2, 4, 3>) : memref<64x32xf16, #tile.scope<shared>>
    // CHECK-NEXT: tile.annotate_layout %[[RF]] layout(#tile.fragment<[64], threads = 256, (d0) -> (d0 floordiv 2, d0 mod 2), replicate = 8>)
    tile.annotate_layout %Rf layout(#tile.fragment<[64], threads = 256, (d0) -> (d0 floordiv 2, d0 mod 2), replicate = 8>) : memref<64xf32, #tile.scope<fragment>>
    // CHECK-NEXT: tile.fill %[[CF]], %[[X]]
    tile.fill %Cf, %x : memref<64x64xf32, #tile.scope<fragment>>, f32
    // CHECK-NEXT: tile.clear %[[L]]
    tile.clear %L : memref<1xf32, #tile.scope<local>>
    // CHECK-NEXT: tile.pipelined %[[K:.*]] = %{{.*}} to %[[N]] step %{{.*}} num_stages = 3 attributes {order = array<i64: 1, 0, 2, 3>, stage = array<i64: 0, 0, 2, 2>} {
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 3 attributes {order = array<i64: 1, 0, 2, 3>, stage = array<i64: 0, 0, 2, 2>} {
      // CHECK-NEXT: tile.copy %[[A]][%[[BX]], %[[K]]] to %[[AS]] {inst = #tile.copy_inst<cp_async>, pad = 0xFC00 : f16}
      tile.copy %A[%bx, %k] to %As {inst = #tile.copy_inst<cp_async>, pad = 0xFC00 : f16} : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
      // CHECK-NEXT: tile.copy %[[Q]][%[[BY]], %[[K]], 0, 0] [1, 1, 64, 32] to %[[BS]] {inst = #tile.copy_inst<tma>}
      tile.copy %Q[%by, %k, 0, 0] [1, 1, 64, 32] to %Bs {inst = #tile.copy_inst<tma>} : memref<?x?x?x64xf16> to memref<64x32xf16, #tile.scope<shared>>
      // CHECK-NEXT: tile.gemm %[[AS]], %[[BS]], %[[CF]] {clear_accum, policy = #tile.policy<full_row>, transpose_b}
      tile.gemm %As, %Bs, %Cf {transpose_b, clear_accum, policy = #tile.policy<full_row>} : memref<64x32xf16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
      // CHECK-NEXT: tile.gemm_sp %[[HS]], %[[ES]], %[[BS]], %[[CF]] {policy = #tile.policy<full_col>, transpose_b}
      tile.gemm_sp %Hs, %Es, %Bs, %Cf {transpose_b, policy = #tile.policy<full_col>} : memref<64x16xf16, #tile.scope<shared>>, memref<64x2xi16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    // CHECK-NEXT: }
    }
    // CHECK-NEXT: tile.reduce absmax %[[CF]] into %[[RF]] dim = 1 {clear = false}
    tile.reduce absmax %Cf into %Rf dim = 1 {clear = false} : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    // CHECK-NEXT: tile.reduce sum %[[RF]] into %[[L]] dim = 0 :
    tile.reduce sum %Rf into %L dim = 0 : memref<64xf32, #tile.scope<fragment>> into memref<1xf32, #tile.scope<local>>
    // CHECK-NEXT: tile.parallel (%[[I:.*]], %[[J:.*]]) in (64, 64) attributes {vectorize} {
    tile.parallel (%i, %j) in (64, 64) attributes {vectorize} {
      // CHECK-NEXT: memref.load %[[CF]][%[[I]], %[[J]]]
      %v = memref.load %Cf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %w = arith.mulf %v, %x : f32
      memref.store %w, %Cf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      // CHECK: tile.yield {tag}
      tile.yield {tag}
    }
    // CHECK: tile.atomic_add %[[OUT]][%[[BX]], 0], %[[X]] : memref<?x?xf32>, f32
    tile.atomic_add %Out[%bx, 0], %x : memref<?x?xf32>, f32
    // CHECK-NEXT: tile.atomic_max %[[OUT]][0, %[[BY]]], %[[CF]] : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
    tile.atomic_max %Out[0, %by], %Cf : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
    // CHECK-NEXT: %[[L2:.*]] = memref.expand_shape %[[L]]
    // CHECK-NEXT: tile.atomic_min %[[OUT]][%[[BX]], %[[BY]]], %[[L2]] : memref<?x?xf32>, memref<1x1xf32, #tile.scope<local>>
    %L2 = memref.expand_shape %L [[0, 1]] output_shape [1, 1] : memref<1xf32, #tile.scope<local>> into memref<1x1xf32, #tile.scope<local>>
    tile.atomic_min %Out[%bx, %by], %L2 : memref<?x?xf32>, memref<1x1xf32, #tile.scope<local>>
    // CHECK-NEXT: tile.copy %[[CF]] to %[[OUT]][%[[BX]], 0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
    tile.copy %Cf to %Out[%bx, 0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  // CHECK-NEXT: }
  }
  return
}
