// Atomic additions of a fragment into global memory on sm_90a: each run of
// four registers holding consecutive f32 elements of a row (the pinned
// layout: a thread holds 32 consecutive elements of a row) is one
// red.global.add.v4.f32 where the run lies inside the tensor at a 16-byte
// aligned address, else four scalar atomics; f16 runs of eight are one
// red.global.add.noftz.v8.f16. Vector red needs PTX ISA 8.1, which the
// kernel is serialized with. The tile.parallel form (TileLang's split-K
// epilogue: T.atomic_add(C[r + i, j], F[i, j])) is the tile op of the whole
// fragment. sm_80 has f16 pairs (red.global.add.noftz.f16x2) only, and keeps
// PTX 8.0.
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_90a format=isa' | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_80 format=isa' | FileCheck %s --check-prefix=SM80
// SM90: gpu.binary @splitk_epilogue_kernel {{.*}}.version 8.1{{.*}}red.global.add.v4.f32 [g], {{.*}}atom.global.add.f32
// SM90: gpu.binary @halves_kernel {{.*}}.version 8.1{{.*}}red.global.add.noftz.v8.f16 [g], {{.*}}atom.global.add.noftz.f16
// SM80: gpu.binary @splitk_epilogue_kernel {{.*}}.version 8.0
// SM80-NOT: red.global.add.v
// SM80: gpu.binary @halves_kernel {{.*}}.version 8.0{{.*}}red.global.add.noftz.f16x2 [g], p;
// SM80-NOT: red.global.add.v
func.func @splitk_epilogue(%a: memref<?x64xf32>, %c: memref<?x64xf32>) {
  %c64 = arith.constant 64 : index
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[64, 64], threads = 128, (d0, d1) -> (d0 * 2 + d1 floordiv 32, d1 mod 32), inverse = (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 32 + d1)>) : memref<64x64xf32, #tile.scope<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %a[%row, 0] [64, 64] to %f[0, 0] [64, 64] : memref<?x64xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %r = arith.addi %row, %i : index
      %v = memref.load %f[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      tile.atomic_add %c[%r, %j], %v : memref<?x64xf32>, f32
    }
  }
  return
}
func.func @halves(%a: memref<?x64xf16>, %c: memref<?x64xf16>) {
  %c64 = arith.constant 64 : index
  tile.kernel (%bx) in (4) threads(128) {
    %f = tile.alloc_fragment : memref<64x64xf16, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[64, 64], threads = 128, (d0, d1) -> (d0 * 2 + d1 floordiv 32, d1 mod 32), inverse = (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 32 + d1)>) : memref<64x64xf16, #tile.scope<fragment>>
    %row = arith.muli %bx, %c64 : index
    tile.copy %a[%row, 0] [64, 64] to %f[0, 0] [64, 64] : memref<?x64xf16> to memref<64x64xf16, #tile.scope<fragment>>
    tile.atomic_add %c[%row, 0], %f : memref<?x64xf16>, memref<64x64xf16, #tile.scope<fragment>>
  }
  return
}
