// The whole NVIDIA pipeline on the mbarriers of TileLang's T.alloc_barrier
// (what the front end emits: a group created and initialized by thread 0,
// a block barrier, then an arrival and a parity wait of every thread). Both
// chips initialize and arrive with the same instructions; sm_90a waits with
// `mbarrier.try_wait`, sm_80 in a loop of `mbarrier.test_wait`. ptxas
// accepts both.
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_80 format=isa' -o %t.sm80.mlir
// RUN: FileCheck %s --check-prefixes=CHECK,SM80 < %t.sm80.mlir
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_90a format=isa' -o %t.sm90a.mlir
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 < %t.sm90a.mlir
// RUN: %if ptxas %{ %python %S/extract_ptx.py %t.sm80.mlir %t.sm80.ptx %}
// RUN: %if ptxas %{ /usr/local/cuda/bin/ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin %}
// RUN: %if ptxas %{ %python %S/extract_ptx.py %t.sm90a.mlir %t.sm90a.ptx %}
// RUN: %if ptxas %{ /usr/local/cuda/bin/ptxas -arch=sm_90a %t.sm90a.ptx -o %t.sm90a.cubin %}
// CHECK: gpu.binary
// CHECK-LABEL: .entry rows_kernel
// CHECK: .shared .align 8 .b8 __mbarrier[16];
// CHECK: mbarrier.init.shared.b64 {{.*}}[__mbarrier], %r{{[0-9]+}};
// CHECK: mbarrier.init.shared.b64 {{.*}}[__mbarrier+8], %r{{[0-9]+}};
// CHECK: bar.sync
// CHECK: mbarrier.arrive.shared.b64
// SM80: mbarrier.test_wait.parity.shared.b64
// SM80-NOT: mbarrier.try_wait
// SM90: mbarrier.try_wait.parity.shared.b64
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
func.func @rows(%a: memref<4x256xf32>, %b: memref<4xf32>) {
  tile.kernel (%bx) in (4) threads(128) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %hint = arith.constant 10000000 : index
    %bars = nvgpu.mbarrier.create -> !bars
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      nvgpu.mbarrier.init %bars[%c0], %c128 : !bars
      nvgpu.mbarrier.init %bars[%c1], %c128 : !bars
    }
    gpu.barrier
    %s = tile.alloc_shared : memref<1x256xf32, #tile.scope<shared>>
    tile.copy %a[%bx, 0] [1, 256] to %s : memref<4x256xf32> to memref<1x256xf32, #tile.scope<shared>>
    %t = nvgpu.mbarrier.arrive %bars[%c1] : !bars -> !nvgpu.mbarrier.token
    %false = arith.constant false
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %false, %hint : !bars
    scf.if %first {
      %v = memref.load %s[%c0, %c1] : memref<1x256xf32, #tile.scope<shared>>
      memref.store %v, %b[%bx] : memref<4xf32>
    }
  }
  return
}
