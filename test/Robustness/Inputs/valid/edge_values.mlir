// Valid IR at the edges of what the verifiers accept: fuzzer seeds, one per
// split-input-file case. The passes must handle each one (tile-verify-target
// and the lowerings may reject some, with a diagnostic).

// Index elements have no bit width of their own: tile-verify-target used to
// crash sizing this shared buffer.
func.func @index_buffers(%g: memref<?xindex>) {
  tile.kernel (%bx) in (1) threads(32) {
    %s = tile.alloc_shared : memref<4xindex, #tile.scope<shared>>
    %l = tile.alloc_local : memref<1xindex, #tile.scope<local>>
    tile.copy %g[0] to %s : memref<?xindex> to memref<4xindex, #tile.scope<shared>>
    tile.copy %s[0] [1] to %l : memref<4xindex, #tile.scope<shared>> to memref<1xindex, #tile.scope<local>>
    tile.copy %l to %g[%bx] : memref<1xindex, #tile.scope<local>> to memref<?xindex>
  }
  return
}

// -----
// Buffers whose byte size overflows int64 (tile-verify-target must saturate,
// not wrap around below the limit), and an INT64_MAX grid.
func.func @huge_buffers() {
  tile.kernel (%bx, %by, %bz) in (9223372036854775807, 1, 1) threads(1024) cluster(1, 1, 1) {
    %s = tile.alloc_shared : memref<9223372036854775807xf64, #tile.scope<shared>>
    %t = tile.alloc_shared : memref<4611686018427387904x4xi8, #tile.scope<shared>>
  }
  return
}

// -----
// Huge register buffers: on the CPU they live on the block thread's stack.
func.func @huge_local(%g: memref<?xf32>) {
  %z = arith.constant 1.0 : f32
  tile.kernel (%bx) in (1) threads(1) {
    %l = tile.alloc_local : memref<1073741824xf32, #tile.scope<local>>
    %f = tile.alloc_fragment : memref<4611686018427387904x2xf32, #tile.scope<fragment>>
    tile.fill %l, %z : memref<1073741824xf32, #tile.scope<local>>, f32
    tile.copy %g[0] to %l : memref<?xf32> to memref<1073741824xf32, #tile.scope<local>>
  }
  return
}

// -----
// Offsets at the ends of the int64 range into global memory (in bounds of
// nothing, which is legal: out-of-bounds elements are padded / dropped).
func.func @far_offsets(%g: memref<?x?xf32>) {
  tile.kernel (%bx) in (1) threads(1) {
    %f = tile.alloc_fragment : memref<1x1xf32, #tile.scope<fragment>>
    tile.copy %g[9223372036854775807, -9223372036854775807] to %f : memref<?x?xf32> to memref<1x1xf32, #tile.scope<fragment>>
    tile.copy %f to %g[-1, 9223372036854775807] : memref<1x1xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

// -----
func.func @max_stages() {
  tile.kernel (%bx) in (1) threads(1) {
    tile.pipelined %k = %bx to %bx step %bx num_stages = 9223372036854775807 {
    }
  }
  return
}

// -----
// The largest fragment layout the verifier enumerates (2^20 elements), and
// the widest legal swizzle.
func.func @big_layout() {
  tile.kernel (%bx) in (1) threads(1024) {
    %f = tile.alloc_fragment : memref<1024x1024xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[1024, 1024], threads = 1024, (d0, d1) -> (d0, d1)>) : memref<1024x1024xf32, #tile.scope<fragment>>
    %s = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    tile.annotate_layout %s layout(#tile.swizzle<16, 0, 16>) : memref<64x64xf16, #tile.scope<shared>>
  }
  return
}

// -----
// Too large to enumerate: the layout verifier skips the element check.
func.func @huge_layout() {
  tile.kernel (%bx) in (1) threads(32) {
    %f = tile.alloc_fragment : memref<4294967296x4294967296xf32, #tile.scope<fragment>>
    tile.annotate_layout %f layout(#tile.fragment<[4294967296, 4294967296], threads = 32, (d0, d1) -> (d0 mod 32, d1 * 9223372036854775807)>) : memref<4294967296x4294967296xf32, #tile.scope<fragment>>
  }
  return
}

// -----
// Kernels that do nothing: the greedy rewriters erase them as dead, which
// tile-lower-ops must expect (it used to touch the erased ops afterwards).
func.func @dead_kernels(%n: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel (%bx, %by, %bz) in (%n, %c4, 2) threads(64) {
  }
  tile.kernel (%bx) in (%c4) threads(32) {
    %x = arith.addi %bx, %c4 : index
  }
  return
}

// -----
// The most threads the verifier accepts: tile-infer-layouts used to search
// warp partitions of this gemm one warp count at a time, forever.
func.func @max_threads_gemm() {
  tile.kernel (%bx) in (1) threads(9223372036854775807) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<16x8xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<16x16xf16, #tile.scope<shared>>, memref<16x8xf16, #tile.scope<shared>>, memref<16x8xf32, #tile.scope<fragment>>
  }
  return
}
