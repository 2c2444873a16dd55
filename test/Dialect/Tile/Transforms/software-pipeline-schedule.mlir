// tile-software-pipeline carries out a tile.pipelined loop's pinned schedule
// (TileLang's T.Pipelined(order=, stage=)): each load runs as many iterations
// ahead of the ops that read its buffer as their stages differ (a slot for
// each, and the one read), and the steady state issues the loads where
// `order` puts them; the lists are dropped once carried out. An order that
// swaps ops that depend on each other is reported.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tile-opt %t/schedules.mlir --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 | FileCheck %s
// RUN: tile-opt %t/schedules.mlir --tile-select-mma=target=sm_90a --tile-warp-specialize=target=sm_90a --tile-infer-layouts=target=sm_90a --tile-plan-shared=target=sm_90a --tile-place-buffers=target=sm_90a --tile-software-pipeline=target=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %t/invalid.mlir --tile-select-mma=target=sm_80 --tile-warp-specialize=target=sm_80 --tile-infer-layouts=target=sm_80 --tile-plan-shared=target=sm_80 --tile-place-buffers=target=sm_80 --tile-software-pipeline=target=sm_80 -verify-diagnostics

//--- schedules.mlir
// The default schedule of three stages: both loads two iterations ahead,
// three slots each, one commit group may still run when an iteration starts.
// CHECK-LABEL: func.func @default3
// CHECK: memref<3x128x32xf16
// CHECK: memref<3x32x128xf16
// CHECK-COUNT-2: nvgpu.device_async_create_group
// CHECK: tile.pipelined {{.*}} num_stages = 1 {{{$}}
// CHECK: nvgpu.device_async_wait {{.*}} {{{numGroups = 1 : i32}}}
// CHECK: gpu.barrier
// CHECK: nvgpu.device_async_create_group
// CHECK: tile.gemm
// SM90-LABEL: func.func @default3
// SM90-COUNT-6: nvvm.mbarrier.init
// SM90-NOT: nvvm.mbarrier.init
// SM90: tile.pipelined {{.*}} num_stages = 1 attributes {{{loop_annotation = #loop_annotation}}}
func.func @default3(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 3 {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0] [128, 32] to %As[0, 0] [128, 32] : memref<1024x1024xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [32, 128] to %Bs[0, 0] [32, 128] : memref<1024x1024xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 128] to %C[%m0, %n0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf32>
  }
  return
}


// The same schedule pinned: the same loads.
// CHECK-LABEL: func.func @pinned3
// CHECK: memref<3x128x32xf16
// CHECK: memref<3x32x128xf16
// CHECK-COUNT-2: nvgpu.device_async_create_group
// CHECK: tile.pipelined {{.*}} num_stages = 1 {{{$}}
// CHECK: nvgpu.device_async_wait {{.*}} {numGroups = 1 : i32}
// SM90-LABEL: func.func @pinned3
// SM90-COUNT-6: nvvm.mbarrier.init
// SM90-NOT: nvvm.mbarrier.init
// SM90-NOT: stage = array
// SM90: tile.pipelined {{.*}} num_stages = 1 attributes {loop_annotation = #loop_annotation}
func.func @pinned3(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 3 attributes {stage = array<i64: 0, 0, 2>} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0] [128, 32] to %As[0, 0] [128, 32] : memref<1024x1024xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [32, 128] to %Bs[0, 0] [32, 128] : memref<1024x1024xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 128] to %C[%m0, %n0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf32>
  }
  return
}


// Three stages of which the gemm is only one later than the loads: one
// iteration ahead, two slots (two TMA stages on sm_90a: full and empty
// barriers of two).
// CHECK-LABEL: func.func @shallow
// CHECK: memref<2x128x32xf16
// CHECK: memref<2x32x128xf16
// CHECK: nvgpu.device_async_create_group
// CHECK: tile.pipelined {{.*}} num_stages = 1 {{{$}}
// CHECK: nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// SM90-LABEL: func.func @shallow
// SM90-COUNT-4: nvvm.mbarrier.init
// SM90-NOT: nvvm.mbarrier.init
// SM90: tile.pipelined
func.func @shallow(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 3 attributes {stage = array<i64: 0, 0, 1>} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0] [128, 32] to %As[0, 0] [128, 32] : memref<1024x1024xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [32, 128] to %Bs[0, 0] [32, 128] : memref<1024x1024xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 128] to %C[%m0, %n0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf32>
  }
  return
}


// A two iterations ahead (three slots), B one (two slots): the second
// prologue group loads A's iteration 1 and B's iteration 0; every group must
// be done when an iteration starts.
// CHECK-LABEL: func.func @mixed
// CHECK: memref<3x128x32xf16
// CHECK: memref<2x32x128xf16
// CHECK: nvgpu.device_async_create_group
// CHECK: scf.if
// CHECK: scf.if
// CHECK: nvgpu.device_async_create_group
// CHECK: tile.pipelined
// CHECK: nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// CHECK: arith.remui %{{.*}}, %c2
// CHECK: tile.gemm
func.func @mixed(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 3 attributes {stage = array<i64: 0, 1, 2>} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0] [128, 32] to %As[0, 0] [128, 32] : memref<1024x1024xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [32, 128] to %Bs[0, 0] [32, 128] : memref<1024x1024xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 128] to %C[%m0, %n0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf32>
  }
  return
}


// order = [1, 2, 0]: the gemm reads this iteration's slots, then the loads
// of the next iteration are issued.
// CHECK-LABEL: func.func @gemm_first
// CHECK: tile.pipelined {{.*}} num_stages = 1 {{{$}}
// CHECK: nvgpu.device_async_wait
// CHECK: gpu.barrier
// CHECK: tile.gemm
// CHECK: scf.if
// CHECK: nvgpu.device_async_create_group
// CHECK: }
// CHECK-NEXT: nvgpu.device_async_wait
func.func @gemm_first(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel (%bx, %by) in (8, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c128 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 2 attributes {order = array<i64: 1, 2, 0>, stage = array<i64: 0, 0, 1>} {
      %k0 = arith.muli %k, %c32 : index
      tile.copy %A[%m0, %k0] [128, 32] to %As[0, 0] [128, 32] : memref<1024x1024xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k0, %n0] [32, 128] to %Bs[0, 0] [32, 128] : memref<1024x1024xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.copy %Cf[0, 0] [128, 128] to %C[%m0, %n0] [128, 128] : memref<128x128xf32, #tile.scope<fragment>> to memref<1024x1024xf32>
  }
  return
}

//--- invalid.mlir
// The store of the fragment put before the copy that fills it.
func.func @swapped(%A: memref<64x64xf32>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel (%bx) in (1) threads(128) {
    %S = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    %F = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @+1 {{order puts op 2 ('tile.copy') before op 1 ('tile.copy'), but they depend on each other}}
    tile.pipelined %k = %c0 to %c4 step %c1 num_stages = 2 attributes {order = array<i64: 0, 2, 1>, stage = array<i64: 0, 1, 1>} {
      tile.copy %A[0, 0] [64, 64] to %S[0, 0] [64, 64] : memref<64x64xf32> to memref<64x64xf32, #tile.scope<shared>>
      // expected-note @+1 {{op 1}}
      tile.copy %S[0, 0] [64, 64] to %F[0, 0] [64, 64] : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32, #tile.scope<fragment>>
      // expected-note @+1 {{op 2}}
      tile.copy %F[0, 0] [64, 64] to %C[0, 0] [64, 64] : memref<64x64xf32, #tile.scope<fragment>> to memref<64x64xf32>
    }
  }
  return
}
