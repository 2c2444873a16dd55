// tile-place-buffers: every tile buffer of a GPU kernel becomes a
// tile.bind_storage of its storage. Fragments and local buffers are
// memref.allocas first in the kernel's entry block (fragments hold their
// layout's share of registers), shared buffers memref.views of dynamic
// shared memory at byte 0 with tile-plan-shared's offset as their
// planned_offset (tile-plan-scratch places them). The IR it prints parses
// back. On the CPU the pass changes nothing.
//
// RUN: tile-opt %s -split-input-file --tile-place-buffers=target=sm_80 | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-place-buffers=target=sm_90a --verify-roundtrip | FileCheck %s
// RUN: tile-opt %s -split-input-file --tile-place-buffers=target=cpu | FileCheck %s --check-prefix=CPU

#rows = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @placed
// CHECK: tile.kernel {{.*}} attributes {planned_shared_bytes = 4224 : i64} {
// CHECK-NEXT: %[[L:.*]] = memref.alloca() : memref<2x3xi32>
// CHECK-NEXT: %[[R:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT: %[[ZB:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[SB:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[VB:.*]] = memref.view %[[SB]][%[[ZB]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[ZA:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[SA:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[VA:.*]] = memref.view %[[SA]][%[[ZA]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[A:.*]] = tile.bind_storage %[[VA]] {planned_offset = 0 : i64} : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x32xf16, #tile.scope<shared>>
// CHECK-NEXT: %[[F:.*]] = tile.bind_storage %[[R]] {layout = #tile.fragment<[4, 32], threads = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>} : memref<4xf32> to memref<4x32xf32, #tile.scope<fragment>>
// CHECK-NEXT: %[[B:.*]] = tile.bind_storage %[[VB]] {planned_offset = 4096 : i64} : memref<32xf32, #gpu.address_space<workgroup>> to memref<32xf32, #tile.scope<shared>>
// CHECK-NEXT: %[[LB:.*]] = tile.bind_storage %[[L]] : memref<2x3xi32> to memref<2x3xi32, #tile.scope<local>>
// CHECK-NEXT: tile.clear %[[A]]
// CHECK-NEXT: tile.clear %[[F]]
// CHECK-NEXT: tile.clear %[[B]]
// CHECK-NEXT: tile.clear %[[LB]]
// CHECK-NOT: tile.alloc
// CPU-LABEL: func.func @placed
// CPU-COUNT-2: tile.alloc_shared
// CPU-NOT: tile.bind_storage
func.func @placed() {
  tile.kernel (%bx) in (1) threads(32) attributes {planned_shared_bytes = 4224 : i64} {
    %A = tile.alloc_shared {offset = 0 : i64} : memref<64x32xf16, #tile.scope<shared>>
    %F = tile.alloc_fragment {tile.layout = #rows} : memref<4x32xf32, #tile.scope<fragment>>
    %B = tile.alloc_shared {offset = 4096 : i64} : memref<32xf32, #tile.scope<shared>>
    %L = tile.alloc_local : memref<2x3xi32, #tile.scope<local>>
    tile.clear %A : memref<64x32xf16, #tile.scope<shared>>
    tile.clear %F : memref<4x32xf32, #tile.scope<fragment>>
    tile.clear %B : memref<32xf32, #tile.scope<shared>>
    tile.clear %L : memref<2x3xi32, #tile.scope<local>>
  }
  return
}

// -----

// A replicated layout: each of the 64 threads holds its half of the 4x32
// tile twice over, ceildiv(128 * 2, 64) = 4 registers.
// CHECK-LABEL: func.func @replicated
// CHECK: %[[R:.*]] = memref.alloca() : memref<4xf16>
// CHECK: tile.bind_storage %[[R]] {layout = #tile.fragment<[4, 32], threads = 64, {{.*}}, replicate = 2, {{.*}}>} : memref<4xf16> to memref<4x32xf16, #tile.scope<fragment>>
func.func @replicated() {
  tile.kernel (%bx) in (1) threads(64) {
    %F = tile.alloc_fragment {tile.layout = #tile.fragment<[4, 32], threads = 64, (d0, d1) -> (d1, d0), replicate = 2, inverse = (d0, d1) -> (d1 mod 4, d0 mod 32)>} : memref<4x32xf16, #tile.scope<fragment>>
    tile.clear %F : memref<4x32xf16, #tile.scope<fragment>>
  }
  return
}
