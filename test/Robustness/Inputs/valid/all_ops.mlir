// A valid program that uses every tile op in its custom form: a seed of the
// fuzzer (test/Robustness/fuzz.py), not a test of its own.
func.func @all_ops(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>,
                   %Q: memref<?x?x?x128xf16>, %out: memref<?x?xf32>,
                   %E: memref<?x?xi16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  tile.kernel (%bx, %by) in (%n, 8) threads(128) cluster(1, 2) {
    %As = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.scope<shared>>
    %Bt = tile.alloc_shared : memref<128x32xf16, #tile.scope<shared>>
    %Qs = tile.alloc_shared : memref<64x128xf16, #tile.scope<shared>>
    %Cf = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
    %Sf = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %Mf = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %acc = tile.alloc_local : memref<1xf32, #tile.scope<local>>
    tile.annotate_layout %As layout(#tile.swizzle<3, 4, 3>) : memref<128x32xf16, #tile.scope<shared>>
    tile.annotate_layout %Mf layout(#tile.fragment<[64], threads = 128, (d0) -> (d0, 0), replicate = 2>) : memref<64xf32, #tile.scope<fragment>>
    tile.clear %Cf : memref<128x128xf32, #tile.scope<fragment>>
    tile.fill %Mf, %ninf : memref<64xf32, #tile.scope<fragment>>, f32
    tile.fill %acc, %zero : memref<1xf32, #tile.scope<local>>, f32
    tile.copy %Q[%bx, %by, %c0, 0] [1, 64, 1, 128] to %Qs : memref<?x?x?x128xf16> to memref<64x128xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 attributes {order = array<i64: 1, 0, 2>, stage = array<i64: 0, 0, 1>} {
      tile.copy %A[%bx, %k] to %As {inst = #tile.copy_inst<cp_async>, pad = 0.0 : f16} : memref<?x?xf16> to memref<128x32xf16, #tile.scope<shared>>
      tile.copy %B[%k, 0] to %Bs {inst = #tile.copy_inst<tma>} : memref<?x?xf16> to memref<32x128xf16, #tile.scope<shared>>
      tile.gemm %As, %Bs, %Cf {policy = #tile.policy<full_row>} : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    }
    tile.gemm %As, %Bt, %Cf {transpose_b, clear_accum} : memref<128x32xf16, #tile.scope<shared>>, memref<128x32xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.copy %Cf[0, 0] [64, 64] to %Sf : memref<128x128xf32, #tile.scope<fragment>> to memref<64x64xf32, #tile.scope<fragment>>
    tile.reduce max %Sf into %Mf dim = 1 : memref<64x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    tile.reduce abssum %Mf into %acc dim = 0 {clear = false} : memref<64xf32, #tile.scope<fragment>> into memref<1xf32, #tile.scope<local>>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %m = memref.load %Mf[%i] : memref<64xf32, #tile.scope<fragment>>
      %y = arith.subf %x, %m : f32
      memref.store %y, %Sf[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.atomic_add %out[%bx, 0], %Sf : memref<?x?xf32>, memref<64x64xf32, #tile.scope<fragment>>
    %s = memref.load %acc[%c0] : memref<1xf32, #tile.scope<local>>
    tile.atomic_max %out[%c0, %c1], %s : memref<?x?xf32>, f32
    tile.atomic_min %out[0, 0], %s : memref<?x?xf32>, f32
    tile.copy %Cf to %C[%bx, %by] : memref<128x128xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}
