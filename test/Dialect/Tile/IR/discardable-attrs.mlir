// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// The tile.* attributes that passes exchange (declared in TileDialect.td)
// round-trip where they belong.

// CHECK-LABEL: func.func @switches
// CHECK: tile.pipelined {{.*}} attributes {tile.warp_specialize = false}
// CHECK: tile.copy {{.*}} {tile.disable_tma}
func.func @switches(%A: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %c4 step %c1 num_stages = 2 attributes {tile.warp_specialize = false} {
      tile.copy %A to %As {tile.disable_tma} : memref<64x64xf16> to memref<64x64xf16, #tile.scope<shared>>
    }
  }
  return
}

// CHECK-LABEL: func.func @lowering
// CHECK-SAME: !llvm.ptr {tile.tma = {box = array<i64: 64, 64>, param = 0 : i64, store = true, swizzle = 128 : i64}}
// CHECK: tile.kernel {{.*}} attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 1024 : i64}
// CHECK: tile.reduce {{.*}} {tile.scratch_offset = 128 : i64}
// CHECK: scf.if {{.*}} {
// CHECK: } {tile.consumer_threads = 128 : i64}
func.func @lowering(%A: memref<64x64xf16>, %desc: !llvm.ptr {tile.tma = {param = 0 : i64, box = array<i64: 64, 64>, swizzle = 128 : i64, store = true}}, %p: i1) {
  tile.kernel (%bx) in (1) threads(128) attributes {tile.producer_threads = 128 : i64, tile.shared_bytes = 1024 : i64} {
    %S = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %R = tile.alloc_shared : memref<64xf16, #tile.scope<shared>>
    tile.reduce sum %S into %R dim = 1 {tile.scratch_offset = 128 : i64} : memref<64x64xf16, #tile.scope<shared>> into memref<64xf16, #tile.scope<shared>>
    scf.if %p {
    } {tile.consumer_threads = 128 : i64}
  }
  return
}
