// A tile.parallel over the one row of a 1 x N fragment that also updates an
// N-vector indexed by the column (TileLang's layernorm backward: dgamma[j]
// += dy[0, j] * x_hat[0, j]): tile-infer-layouts gives the vector the row's
// layout (element j where the 1 x N tile keeps (0, j)), and the lowering
// writes it in the thread's own registers (a store at projected registers:
// each element written by one iteration, the dimension it leaves out has
// extent 1). Before, the loop "cannot be lowered".
// RUN: tile-opt %s --tile-select-mma=target=sm_90a --tile-infer-layouts=target=sm_90a | FileCheck %s --check-prefix=LAYOUT
// RUN: tile-opt %s --tile-to-nvvm='chip=sm_90a format=isa' | FileCheck %s --check-prefix=PTX
// LAYOUT: tile.alloc_fragment {tile.layout = #tile.fragment<[1, 512], threads = 128, (d0, d1) -> (d1 mod 128, d0 * 4 + d1 floordiv 128), inverse = (d0, d1) -> (0, (d1 * 128 + d0) mod 512)>}
// LAYOUT: tile.alloc_fragment {tile.layout = #tile.fragment<[512], threads = 128, (d0) -> (d0 mod 128, d0 floordiv 128), inverse = (d0, d1) -> ((d1 * 128 + d0) mod 512)>}
// PTX: .visible .entry column_kernel(
// PTX-NOT: ld.local
// PTX-NOT: st.shared
// PTX: atom.global.add.f32
// PTX: ret;

func.func @column(%X: memref<8x512xf32>, %D: memref<512xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %row = tile.alloc_fragment : memref<1x512xf32, #tile.scope<fragment>>
    %acc = tile.alloc_fragment : memref<512xf32, #tile.scope<fragment>>
    tile.clear %acc : memref<512xf32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %r = %c0 to %c8 step %c1 {
      tile.parallel (%i, %j) in (1, 512) {
        %x = memref.load %X[%r, %j] : memref<8x512xf32>
        %sq = arith.mulf %x, %x : f32
        memref.store %sq, %row[%i, %j] : memref<1x512xf32, #tile.scope<fragment>>
        %a = memref.load %acc[%j] : memref<512xf32, #tile.scope<fragment>>
        %s = arith.addf %a, %sq : f32
        memref.store %s, %acc[%j] : memref<512xf32, #tile.scope<fragment>>
        tile.yield
      }
    }
    tile.parallel (%j) in (512) {
      %v = memref.load %acc[%j] : memref<512xf32, #tile.scope<fragment>>
      %old = memref.atomic_rmw addf %v, %D[%j] : (f32, memref<512xf32>) -> f32
      tile.yield
    }
  }
  return
}
