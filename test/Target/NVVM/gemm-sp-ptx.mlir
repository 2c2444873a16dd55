// RUN: tile-opt %s --tile-to-nvvm="chip=sm_90a format=isa" | FileCheck %s

// tile.gemm_sp on NVIDIA: the block expands the compressed A (values and
// 2-bit positions packed in i16 metadata) into a dense shared tile, then the
// dense mma.sync gemm runs on it.
// CHECK: .target sm_90a
// CHECK: shr.u16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

func.func @gemm_sp(%A: memref<?x?xf16>, %E: memref<?x?xi16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  tile.kernel (%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #tile.scope<shared>>
    %Es = tile.alloc_shared : memref<64x4xi16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %A[0, 0] to %As : memref<?x?xf16> to memref<64x32xf16, #tile.scope<shared>>
    tile.copy %E[0, 0] to %Es : memref<?x?xi16> to memref<64x4xi16, #tile.scope<shared>>
    tile.copy %B[0, 0] to %Bs : memref<?x?xf16> to memref<64x64xf16, #tile.scope<shared>>
    tile.gemm_sp %As, %Es, %Bs, %Cf {clear_accum} : memref<64x32xf16, #tile.scope<shared>>, memref<64x4xi16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %Cf to %C[0, 0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf16>
  }
  return
}
