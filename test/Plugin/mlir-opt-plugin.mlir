// Debian's mlir-opt loads the tile dialect and passes from the plugin.
// RUN: mlir-opt %s --load-dialect-plugin=%tile_lib_dir/TileMLIRPlugin%shlibext \
// RUN:   --load-pass-plugin=%tile_lib_dir/TileMLIRPlugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(tile-verify-target{target=sm_80},canonicalize)" \
// RUN:   | FileCheck %s
// RUN: not mlir-opt %s --load-dialect-plugin=%tile_lib_dir/TileMLIRPlugin%shlibext \
// RUN:   --load-pass-plugin=%tile_lib_dir/TileMLIRPlugin%shlibext \
// RUN:   --pass-pipeline="builtin.module(tile-verify-target{target=gfx942})" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AMD

// CHECK-LABEL: func.func @fill
// CHECK: tile.kernel (%[[BX:.*]]) in (4) threads(96)
// CHECK: tile.clear
// CHECK: tile.reduce
// AMD: error: 'tile.reduce' op splits its work over whole warps, but the kernel's 96 threads per block are not a multiple of gfx942's warp size 64
func.func @fill(%out: memref<?xf32>) {
  %c4 = arith.constant 4 : index
  tile.kernel (%bx) in (%c4) threads(96) {
    %f = tile.alloc_fragment : memref<96xf32, #tile.scope<fragment>>
    %zero = arith.constant 0.0 : f32
    tile.fill %f, %zero : memref<96xf32, #tile.scope<fragment>>, f32
    %s = tile.alloc_fragment : memref<1xf32, #tile.scope<fragment>>
    tile.reduce sum %f into %s dim = 0 : memref<96xf32, #tile.scope<fragment>> into memref<1xf32, #tile.scope<fragment>>
    %c96 = arith.constant 96 : index
    %o = arith.muli %bx, %c96 : index
    tile.copy %f to %out[%o] : memref<96xf32, #tile.scope<fragment>> to memref<?xf32>
  }
  return
}
