// tile-mark-tma-params: a kernel parameter that TMA uses as its tensor map
// becomes a 128-byte by-value grid constant; other parameters, and
// functions that are not kernels, are left alone.
//
// RUN: tile-opt %s -split-input-file --tile-mark-tma-params -verify-diagnostics | FileCheck %s

// CHECK-LABEL: llvm.func @load
// CHECK-SAME: (%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: !llvm.ptr<3>, %{{.*}}: !llvm.ptr)
llvm.func @load(%desc: !llvm.ptr, %smem: !llvm.ptr<3>, %other: !llvm.ptr) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %dst = llvm.addrspacecast %smem : !llvm.ptr<3> to !llvm.ptr<7>
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %smem, box[%c0, %c0] : !llvm.ptr<7>, !llvm.ptr
  %v = llvm.load %other : !llvm.ptr -> i32
  llvm.return
}

// CHECK-LABEL: llvm.func @not_a_kernel
// CHECK-SAME: (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr<3>)
llvm.func @not_a_kernel(%desc: !llvm.ptr, %smem: !llvm.ptr<3>) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %dst = llvm.addrspacecast %smem : !llvm.ptr<3> to !llvm.ptr<7>
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %smem, box[%c0] : !llvm.ptr<7>, !llvm.ptr
  llvm.return
}

// -----

// expected-error @+1 {{kernel parameter 0 is used as a TMA descriptor and as memory}}
llvm.func @both(%desc: !llvm.ptr, %smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %dst = llvm.addrspacecast %smem : !llvm.ptr<3> to !llvm.ptr<7>
  nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %desc, %smem, box[%c0] : !llvm.ptr<7>, !llvm.ptr
  %v = llvm.load %desc : !llvm.ptr -> i32
  llvm.return
}
