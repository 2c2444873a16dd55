// tile-plan-shared: an offset on every shared buffer, the planned region's
// size on the kernel. Kernels that fit keep the placement one after the
// other (128-byte aligned, in allocation order, the buffers a pipeliner
// may take last); kernels that do not fit share the bytes of buffers whose
// lifetimes do not overlap, with a barrier before the reuse.
//
// RUN: tile-opt %s -split-input-file --tile-plan-shared=target=sm_90a | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-plan-shared=target=cpu | FileCheck %s --check-prefix=CPU
// Planning twice changes nothing (no second barrier):
// RUN: tile-opt %s -split-input-file --tile-plan-shared=target=sm_90a --tile-plan-shared=target=sm_90a | FileCheck %s

// A 100-byte buffer pushes the next one to 128; the buffer a pipelined
// loop fills from global memory goes after the others.
// CHECK-LABEL: func.func @in_sequence
// CHECK: tile.kernel {{.*}} attributes {planned_shared_bytes = 8448 : i64}
// CHECK-NEXT: tile.alloc_shared {offset = 8320 : i64} : memref<64xf16
// CHECK-NEXT: tile.alloc_shared {offset = 0 : i64} : memref<25xf32
// CHECK-NEXT: tile.alloc_shared {offset = 128 : i64} : memref<64x64xf16
// CHECK-NOT: gpu.barrier
// CPU-LABEL: func.func @in_sequence
// CPU: tile.kernel (%{{.*}}) in (1) threads(128) {
// CPU-NEXT: tile.alloc_shared : memref<64xf16
func.func @in_sequence(%A: memref<1024xf16>, %x: f32, %h: f16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  tile.kernel (%bx) in (1) threads(128) {
    %staged = tile.alloc_shared : memref<64xf16, #tile.scope<shared>>
    %small = tile.alloc_shared : memref<25xf32, #tile.scope<shared>>
    %big = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    tile.fill %small, %x : memref<25xf32, #tile.scope<shared>>, f32
    tile.fill %big, %h : memref<64x64xf16, #tile.scope<shared>>, f16
    tile.pipelined %k = %c0 to %c16 step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %c16 : index
      tile.copy %A[%k0] [64] to %staged : memref<1024xf16> to memref<64xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

// Two 128 KiB buffers do not fit sm_90a's 227 KiB side by side. %a dies
// with the first fill, %b is born with the second: they share bytes, and a
// barrier before %b's first op keeps its writes after every thread's reads
// of %a.
// CHECK-LABEL: func.func @disjoint
// CHECK: tile.kernel {{.*}} attributes {planned_shared_bytes = 131072 : i64}
// CHECK-NEXT: %[[A:.*]] = tile.alloc_shared {offset = 0 : i64} : memref<128x512xf16
// CHECK-NEXT: %[[B:.*]] = tile.alloc_shared {offset = 0 : i64} : memref<128x512xf16
// CHECK-NEXT: tile.fill %[[A]]
// CHECK-NEXT: tile.copy %[[A]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.fill %[[B]]
// CHECK-NOT: gpu.barrier
func.func @disjoint(%out: memref<128x512xf16>, %h: f16) {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x512xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<128x512xf16, #tile.scope<shared>>
    tile.fill %a, %h : memref<128x512xf16, #tile.scope<shared>>, f16
    tile.copy %a to %out : memref<128x512xf16, #tile.scope<shared>> to memref<128x512xf16>
    tile.fill %b, %h : memref<128x512xf16, #tile.scope<shared>>, f16
    tile.copy %b to %out : memref<128x512xf16, #tile.scope<shared>> to memref<128x512xf16>
  }
  return
}

// -----

// Inside one loop nothing is shared: %b's fill comes after %a's last use in
// the body, but the next iteration uses %a again. %c, used after the loop,
// reuses the bytes of both.
// CHECK-LABEL: func.func @loop
// CHECK: planned_shared_bytes = 131072 : i64
// CHECK-NEXT: %[[A:.*]] = tile.alloc_shared {offset = 0 : i64}
// CHECK-NEXT: %[[B:.*]] = tile.alloc_shared {offset = 65536 : i64}
// CHECK-NEXT: %[[C:.*]] = tile.alloc_shared {offset = 0 : i64}
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.fill %[[C]]
func.func @loop(%out: memref<128x512xf16>, %h: f16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    %c = tile.alloc_shared : memref<128x512xf16, #tile.scope<shared>>
    scf.for %i = %c0 to %c4 step %c1 {
      tile.fill %a, %h : memref<64x512xf16, #tile.scope<shared>>, f16
      tile.copy %a to %out[0, 0] [64, 512] : memref<64x512xf16, #tile.scope<shared>> to memref<128x512xf16>
      tile.fill %b, %h : memref<64x512xf16, #tile.scope<shared>>, f16
      tile.copy %b to %out[64, 0] [64, 512] : memref<64x512xf16, #tile.scope<shared>> to memref<128x512xf16>
    }
    tile.fill %c, %h : memref<128x512xf16, #tile.scope<shared>>, f16
    tile.copy %c to %out : memref<128x512xf16, #tile.scope<shared>> to memref<128x512xf16>
  }
  return
}

// -----

// The buffer of a pipelined loop's copies (cp.async or TMA stages) lives
// across the whole loop: the buffer used after it in the loop's body does
// not get its bytes; %o after the loop shares %q's.
// CHECK-LABEL: func.func @pipelined
// CHECK: planned_shared_bytes = 163840 : i64
// CHECK-NEXT: %[[Q:.*]] = tile.alloc_shared {offset = 0 : i64} : memref<64x512xf16
// CHECK-NEXT: %[[KV:.*]] = tile.alloc_shared {offset = 131072 : i64} : memref<64x256xf16
// CHECK-NEXT: %[[S:.*]] = tile.alloc_shared {offset = 65536 : i64} : memref<64x512xf16
// CHECK-NEXT: %[[O:.*]] = tile.alloc_shared {offset = 0 : i64} : memref<64x512xf16
// CHECK: tile.pipelined
// CHECK-NOT: gpu.barrier
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.fill %[[O]]
func.func @pipelined(%KV: memref<4096x256xf16>, %out: memref<64x512xf16>, %h: f16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel (%bx) in (1) threads(128) {
    %q = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    %kv = tile.alloc_shared : memref<64x256xf16, #tile.scope<shared>>
    %s = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    %o = tile.alloc_shared : memref<64x512xf16, #tile.scope<shared>>
    tile.fill %q, %h : memref<64x512xf16, #tile.scope<shared>>, f16
    tile.pipelined %k = %c0 to %c64 step %c1 num_stages = 2 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %KV[%k0, 0] [64, 256] to %kv : memref<4096x256xf16> to memref<64x256xf16, #tile.scope<shared>>
      tile.copy %q to %out : memref<64x512xf16, #tile.scope<shared>> to memref<64x512xf16>
      tile.copy %kv to %s[0, 0] [64, 256] : memref<64x256xf16, #tile.scope<shared>> to memref<64x512xf16, #tile.scope<shared>>
      tile.copy %s to %out : memref<64x512xf16, #tile.scope<shared>> to memref<64x512xf16>
    }
    tile.fill %o, %h : memref<64x512xf16, #tile.scope<shared>>, f16
    tile.copy %o to %out : memref<64x512xf16, #tile.scope<shared>> to memref<64x512xf16>
  }
  return
}

// -----

// A buffer read through a view lives as long as the view is used: %b does
// not get %a's bytes, %c after the last read does.
// CHECK-LABEL: func.func @view
// CHECK: planned_shared_bytes = 196608 : i64
// CHECK-NEXT: tile.alloc_shared {offset = 0 : i64}
// CHECK-NEXT: tile.alloc_shared {offset = 131072 : i64}
// CHECK-NEXT: tile.alloc_shared {offset = 0 : i64}
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.fill
func.func @view(%out: memref<128x512xf16>, %h: f16, %i: index) {
  tile.kernel (%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x512xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<128x256xf16, #tile.scope<shared>>
    %c = tile.alloc_shared : memref<128x256xf16, #tile.scope<shared>>
    %row = memref.subview %a[0, 0] [1, 512] [1, 1] : memref<128x512xf16, #tile.scope<shared>> to memref<512xf16, strided<[1]>, #tile.scope<shared>>
    tile.fill %a, %h : memref<128x512xf16, #tile.scope<shared>>, f16
    tile.fill %b, %h : memref<128x256xf16, #tile.scope<shared>>, f16
    %v = memref.load %row[%i] : memref<512xf16, strided<[1]>, #tile.scope<shared>>
    memref.store %v, %out[%i, %i] : memref<128x512xf16>
    tile.fill %c, %h : memref<128x256xf16, #tile.scope<shared>>, f16
    tile.copy %c to %out[0, 0] [128, 256] : memref<128x256xf16, #tile.scope<shared>> to memref<128x512xf16>
  }
  return
}
