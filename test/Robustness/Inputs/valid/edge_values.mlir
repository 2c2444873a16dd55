// Valid IR at the edges of what the verifiers accept: a fuzzer seed. The
// passes must handle it (tile-verify-target may reject it, with a
// diagnostic): index elements, which have no bit width of their own
// (tile-verify-target used to crash sizing them), buffers whose byte size
// overflows int64, unit and huge extents, INT64_MAX offsets into global
// memory.
func.func @index_buffers(%g: memref<?xindex>) {
  tile.kernel (%bx) in (1) threads(32) {
    %s = tile.alloc_shared : memref<4xindex, #tile.scope<shared>>
    %l = tile.alloc_local : memref<1xindex, #tile.scope<local>>
    tile.copy %g[0] to %s : memref<?xindex> to memref<4xindex, #tile.scope<shared>>
    tile.copy %s[0] [1] to %l : memref<4xindex, #tile.scope<shared>> to memref<1xindex, #tile.scope<local>>
  }
  return
}

func.func @huge_buffers() {
  tile.kernel (%bx, %by, %bz) in (9223372036854775807, 1, 1) threads(1024) cluster(1, 1, 1) {
    %s = tile.alloc_shared : memref<9223372036854775807xf64, #tile.scope<shared>>
    %t = tile.alloc_shared : memref<4611686018427387904x4xi8, #tile.scope<shared>>
  }
  return
}

func.func @far_offsets(%g: memref<?x?xf32>) {
  tile.kernel (%bx) in (1) threads(1) {
    %f = tile.alloc_fragment : memref<1x1xf32, #tile.scope<fragment>>
    tile.copy %g[9223372036854775807, -9223372036854775807] to %f : memref<?x?xf32> to memref<1x1xf32, #tile.scope<fragment>>
    tile.copy %f to %g[-1, 9223372036854775807] : memref<1x1xf32, #tile.scope<fragment>> to memref<?x?xf32>
    tile.pipelined %k = %bx to %bx step %bx num_stages = 9223372036854775807 {
    }
  }
  return
}

func.func @big_layout() {
  tile.kernel (%bx) in (1) threads(1024) {
    %f = tile.alloc_fragment : memref<1024x1024xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[1024, 1024], threads = 1024, (d0, d1) -> (d0, d1)>) : memref<1024x1024xf32, #tile.scope<fragment>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<16, 0, 16>) : memref<64x64xf16, #tile.scope<shared>>
  }
  return
}
