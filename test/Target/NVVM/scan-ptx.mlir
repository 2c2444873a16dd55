// The whole NVIDIA pipeline on scans (TileLang's T.cumsum / T.cummax): a
// 64x64 shared tile scanned along its rows by 8 warps (a row a warp,
// segments of 32 lanes: 5 shuffles up, the carry from lane 31), and a
// 1-d line of 512 split over the 8 warps (their parts' totals through
// shared memory between two barriers). ptxas accepts the PTX for both
// chips without spilling.
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_80 format=isa' | FileCheck %s
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_90a format=isa' -o %t.sm90a.mlir
// RUN: FileCheck %s < %t.sm90a.mlir
// RUN: %if ptxas %{ %python %S/extract_ptx.py %t.sm90a.mlir %t.sm90a.ptx %}
// RUN: %if ptxas %{ /usr/local/cuda/bin/ptxas -arch=sm_90a -v %t.sm90a.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// CHECK: gpu.binary
// CHECK-LABEL: .entry rows_kernel
// CHECK-COUNT-5: shfl.sync.up.b32
// CHECK: shfl.sync.idx.b32
// CHECK: st.shared.b32
// CHECK-LABEL: .entry line_kernel
// CHECK: shfl.sync.up.b32
// CHECK: max.NaN.f32
// CHECK: bar.sync
// CHECK: ld.shared.b32
// CHECK: bar.sync
// PTXAS-NOT: spill stores, [1-9]
// PTXAS: 0 bytes spill stores
func.func @rows(%a: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %m = memref.dim %a, %c0 : memref<?x64xf32>
  %c64 = arith.constant 64 : index
  %blocks = arith.divui %m, %c64 : index
  tile.kernel (%bx) in (%blocks) threads(256) {
    %row = arith.muli %bx, %c64 : index
    %s = tile.alloc_shared : memref<64x64xf32, #tile.scope<shared>>
    tile.copy %a[%row, 0] [64, 64] to %s : memref<?x64xf32> to memref<64x64xf32, #tile.scope<shared>>
    tile.scan sum %s[0, 0] [64, 64] to %s[0, 0] [64, 64] dim = 1 : memref<64x64xf32, #tile.scope<shared>> to memref<64x64xf32, #tile.scope<shared>>
    tile.copy %s to %a[%row, 0] [64, 64] : memref<64x64xf32, #tile.scope<shared>> to memref<?x64xf32>
  }
  return
}

func.func @line(%a: memref<512xf32>) {
  tile.kernel (%bx) in (1) threads(256) {
    %s = tile.alloc_shared : memref<512xf32, #tile.scope<shared>>
    tile.copy %a to %s : memref<512xf32> to memref<512xf32, #tile.scope<shared>>
    tile.scan max %s[0] [512] to %s[0] [512] dim = 0 {reverse} : memref<512xf32, #tile.scope<shared>> to memref<512xf32, #tile.scope<shared>>
    tile.copy %s to %a : memref<512xf32, #tile.scope<shared>> to memref<512xf32>
  }
  return
}
