// tile-lower-ops of tile.make_tensor (TileLang's T.make_tensor of a T.ptr):
// the memref's descriptor is built from the address (both pointers), offset
// 0, the sizes (dynamic ones from the op's operands) and row-major strides,
// then cast to the memref type for the memref ops that use it. The same on
// every target.
//
// RUN: tile-opt %s --tile-lower-ops=target=cpu | FileCheck %s
// RUN: tile-opt %s --tile-lower-ops=target=sm_90a | FileCheck %s
// RUN: tile-opt %s --tile-lower-ops=target=cpu --tile-lower-kernel=target=cpu --convert-scf-to-cf --expand-strided-metadata --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @descriptor
// CHECK-SAME: (%[[P:.*]]: i64, %[[M:.*]]: index, %[[K:.*]]: index
// CHECK: llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
// CHECK: tile.kernel
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[P]] : i64 to !llvm.ptr
// CHECK: llvm.insertvalue %[[PTR]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[PTR]], %{{.*}}[1]
// CHECK-DAG: arith.index_cast %[[M]] : index to i64
// CHECK-DAG: %[[KI:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK: arith.muli %[[KI]], %{{.*}} : i64
// CHECK: %[[A:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)> to memref<?x4x?xf32>
// CHECK: memref.load %[[A]]
// CHECK-NOT: tile.make_tensor
// The descriptor's cast meets the memref-to-llvm one: no memref is left.
// LLVM-LABEL: llvm.func @descriptor
// LLVM-NOT: memref<
// LLVM: llvm.inttoptr
// LLVM: llvm.getelementptr
// LLVM: llvm.load
// LLVM-NOT: memref<
func.func @descriptor(%p: i64, %m: index, %k: index, %out: memref<1xf32>) {
  tile.kernel (%bx) in (1) threads(1) {
    %a = tile.make_tensor %p(%m, %k) : memref<?x4x?xf32>
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0, %c0, %c0] : memref<?x4x?xf32>
    memref.store %x, %out[%c0] : memref<1xf32>
  }
  return
}
