// The layouts tile-infer-layouts gives (an inverse, the default replicate)
// print in a form the parser reads back (--verify-roundtrip, tile-opt
// pipelines split over processes).
// RUN: tile-opt %s --tile-select-mma=target=sm_80 --tile-infer-layouts=target=sm_80 | tile-opt | FileCheck %s
// CHECK: tile.layout = #tile.fragment<[64], threads = 32, {{.*}}, inverse =

func.func @reparse(%x: f32) {
  tile.kernel (%bx) in (1) threads(32) {
    %F = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    tile.fill %F, %x : memref<64xf32, #tile.scope<fragment>>, f32
  }
  return
}
