// Valid kernels that the CPU lowering (tile-to-cpu) accepts, in shapes and
// element types that stress it: fuzzer seeds, one per split-input-file case.

// Copies with unit dims, 3-d / 4-d regions, conversions and padding.
func.func @copies(%A: memref<?x?x?x?xf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>, %I: memref<?xi8>, %X: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  tile.kernel (%bx, %by) in (3, 5) threads(7) {
    %s = tile.alloc_shared : memref<1x8x1x16xf16, #tile.scope<shared>>
    %f = tile.alloc_fragment : memref<8x16xf32, #tile.scope<fragment>>
    %l = tile.alloc_local : memref<16xbf16, #tile.scope<local>>
    %i = tile.alloc_local : memref<3xi32, #tile.scope<local>>
    %x = tile.alloc_local : memref<5xindex, #tile.scope<local>>
    tile.copy %A[%bx, %by, 1, 0] [1, 8, 1, 16] to %s {pad = 1.5 : f16} : memref<?x?x?x?xf16> to memref<1x8x1x16xf16, #tile.scope<shared>>
    tile.copy %s to %f : memref<1x8x1x16xf16, #tile.scope<shared>> to memref<8x16xf32, #tile.scope<fragment>>
    tile.copy %f[%c1, 0] [1, 16] to %l : memref<8x16xf32, #tile.scope<fragment>> to memref<16xbf16, #tile.scope<local>>
    tile.copy %l to %B[%bx, -3] [1, 16] : memref<16xbf16, #tile.scope<local>> to memref<?x?xbf16>
    tile.copy %f to %C[%by, %bx] : memref<8x16xf32, #tile.scope<fragment>> to memref<?x?xf32>
    tile.copy %I[%bx] to %i : memref<?xi8> to memref<3xi32, #tile.scope<local>>
    tile.copy %i to %x[1] : memref<3xi32, #tile.scope<local>> to memref<5xindex, #tile.scope<local>>
    tile.copy %x[1] [3] to %I[7] : memref<5xindex, #tile.scope<local>> to memref<?xi8>
    tile.copy %C[0, 0] [1, 1] to %C[%bx, %by] [1, 1] : memref<?x?xf32> to memref<?x?xf32>
    tile.copy %X[0] [1] to %x[4] [1] : memref<?xindex> to memref<5xindex, #tile.scope<local>>
  }
  return
}

// -----
// Column copies (the tile's last dim is not the buffer's last dim).
func.func @columns(%A: memref<?x?xf32>) {
  tile.kernel (%bx) in (2) threads(32) {
    %f = tile.alloc_fragment : memref<8x1xf32, #tile.scope<fragment>>
    %g = tile.alloc_fragment : memref<1x8xf32, #tile.scope<fragment>>
    tile.copy %A[0, %bx] [8, 1] to %f : memref<?x?xf32> to memref<8x1xf32, #tile.scope<fragment>>
    tile.copy %f to %g : memref<8x1xf32, #tile.scope<fragment>> to memref<1x8xf32, #tile.scope<fragment>>
    tile.copy %g to %A[%bx, 0] [8, 1] : memref<1x8xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

// -----
// Gemms of every legal type mix, transposed and with odd sizes.
func.func @gemms() {
  tile.kernel (%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<3x5xf16, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<7x5xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<3x7xf16, #tile.scope<fragment>>
    tile.gemm %a, %b, %c {transpose_b, clear_accum} : memref<3x5xf16, #tile.scope<shared>>, memref<7x5xf16, #tile.scope<shared>>, memref<3x7xf16, #tile.scope<fragment>>
    %at = tile.alloc_fragment : memref<5x3xbf16, #tile.scope<fragment>>
    %bt = tile.alloc_shared : memref<5x1xbf16, #tile.scope<shared>>
    %ct = tile.alloc_fragment : memref<3x1xf32, #tile.scope<fragment>>
    tile.gemm %at, %bt, %ct {transpose_a, policy = #tile.policy<full_col>} : memref<5x3xbf16, #tile.scope<fragment>>, memref<5x1xbf16, #tile.scope<shared>>, memref<3x1xf32, #tile.scope<fragment>>
    %i = tile.alloc_shared : memref<1x1xi8, #tile.scope<shared>>
    %ic = tile.alloc_fragment : memref<1x1xi32, #tile.scope<fragment>>
    tile.gemm %i, %i, %ic {transpose_a, transpose_b} : memref<1x1xi8, #tile.scope<shared>>, memref<1x1xi8, #tile.scope<shared>>, memref<1x1xi32, #tile.scope<fragment>>
    %f = tile.alloc_shared : memref<16x64xf32, #tile.scope<shared>>
    %fc = tile.alloc_fragment : memref<16x16xf32, #tile.scope<fragment>>
    tile.gemm %f, %f, %fc {transpose_b} : memref<16x64xf32, #tile.scope<shared>>, memref<16x64xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----
// fp8 (no CPU lowering: tile-verify-target rejects it there).
func.func @fp8_gemm() {
  tile.kernel (%bx) in (1) threads(128) {
    %e = tile.alloc_shared : memref<32x32xf8E4M3FN, #tile.scope<shared>>
    %e5 = tile.alloc_shared : memref<32x32xf8E5M2, #tile.scope<shared>>
    %ec = tile.alloc_fragment : memref<32x32xf16, #tile.scope<fragment>>
    tile.gemm %e, %e5, %ec : memref<32x32xf8E4M3FN, #tile.scope<shared>>, memref<32x32xf8E5M2, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<fragment>>
  }
  return
}

// -----
func.func @sparse_gemm() {
  tile.kernel (%bx) in (1) threads(32) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.scope<shared>>
    %e = tile.alloc_shared : memref<16x1xi32, #tile.scope<shared>>
    %b = tile.alloc_shared : memref<8x32xf16, #tile.scope<shared>>
    %c = tile.alloc_fragment : memref<16x8xf32, #tile.scope<fragment>>
    tile.gemm_sp %a, %e, %b, %c {transpose_b} : memref<16x16xf16, #tile.scope<shared>>, memref<16x1xi32, #tile.scope<shared>>, memref<8x32xf16, #tile.scope<shared>>, memref<16x8xf32, #tile.scope<fragment>>
  }
  return
}

// -----
// Reductions of every kind, along every dim, integer and float, 1-d to 3-d.
func.func @reductions() {
  tile.kernel (%bx) in (1) threads(32) {
    %s = tile.alloc_fragment : memref<4x5x6xf32, #tile.scope<fragment>>
    %t0 = tile.alloc_fragment : memref<5x6xf32, #tile.scope<fragment>>
    %t2 = tile.alloc_local : memref<4x5xf32, #tile.scope<local>>
    %one = tile.alloc_shared : memref<1xf32, #tile.scope<shared>>
    tile.reduce sum %s into %t0 dim = 0 : memref<4x5x6xf32, #tile.scope<fragment>> into memref<5x6xf32, #tile.scope<fragment>>
    tile.reduce absmax %s into %t2 dim = 2 {clear = false} : memref<4x5x6xf32, #tile.scope<fragment>> into memref<4x5xf32, #tile.scope<local>>
    %v = tile.alloc_fragment : memref<7xf32, #tile.scope<fragment>>
    tile.reduce abssum %v into %one dim = 0 : memref<7xf32, #tile.scope<fragment>> into memref<1xf32, #tile.scope<shared>>
    %iv = tile.alloc_local : memref<3x2xi8, #tile.scope<local>>
    %it = tile.alloc_local : memref<3xi8, #tile.scope<local>>
    tile.reduce min %iv into %it dim = 1 : memref<3x2xi8, #tile.scope<local>> into memref<3xi8, #tile.scope<local>>
    tile.reduce max %iv into %it dim = 1 {clear = false} : memref<3x2xi8, #tile.scope<local>> into memref<3xi8, #tile.scope<local>>
    tile.reduce absmax %iv into %it dim = 1 : memref<3x2xi8, #tile.scope<local>> into memref<3xi8, #tile.scope<local>>
    %b = tile.alloc_local : memref<2xi1, #tile.scope<local>>
    %bt = tile.alloc_local : memref<1xi1, #tile.scope<local>>
    tile.reduce sum %b into %bt dim = 0 : memref<2xi1, #tile.scope<local>> into memref<1xi1, #tile.scope<local>>
    %h = tile.alloc_local : memref<2x2xf16, #tile.scope<local>>
    %ht = tile.alloc_local : memref<2xf16, #tile.scope<local>>
    tile.reduce abssum %h into %ht dim = 0 : memref<2x2xf16, #tile.scope<local>> into memref<2xf16, #tile.scope<local>>
  }
  return
}

// -----
// Fills, clears and atomics of every type the verifiers allow.
func.func @fills_and_atomics(%g: memref<?x?xf32>, %gi: memref<?xi32>, %gl: memref<?xi64>, %gh: memref<?xf16>) {
  %f = arith.constant -2.5 : f32
  %i = arith.constant 7 : i32
  %l = arith.constant -7 : i64
  %x = arith.constant 3 : index
  %b = arith.constant true
  %h = arith.constant 0.5 : f16
  tile.kernel (%bx) in (4) threads(32) {
    %s = tile.alloc_shared : memref<4x4xf32, #tile.scope<shared>>
    %si = tile.alloc_shared : memref<4xi32, #tile.scope<shared>>
    %xi = tile.alloc_local : memref<2xindex, #tile.scope<local>>
    %bi = tile.alloc_local : memref<9xi1, #tile.scope<local>>
    %hf = tile.alloc_fragment : memref<2x3xf16, #tile.scope<fragment>>
    tile.fill %s, %f : memref<4x4xf32, #tile.scope<shared>>, f32
    tile.fill %si, %i : memref<4xi32, #tile.scope<shared>>, i32
    tile.fill %xi, %x : memref<2xindex, #tile.scope<local>>, index
    tile.fill %bi, %b : memref<9xi1, #tile.scope<local>>, i1
    tile.clear %bi : memref<9xi1, #tile.scope<local>>
    tile.fill %hf, %h : memref<2x3xf16, #tile.scope<fragment>>, f16
    tile.atomic_add %g[%bx, 0], %s : memref<?x?xf32>, memref<4x4xf32, #tile.scope<shared>>
    tile.atomic_max %g[-2, 9223372036854775807], %f : memref<?x?xf32>, f32
    tile.atomic_min %gi[%bx], %si : memref<?xi32>, memref<4xi32, #tile.scope<shared>>
    tile.atomic_add %gi[0], %i : memref<?xi32>, i32
    tile.atomic_max %gl[0], %l : memref<?xi64>, i64
    tile.atomic_add %si[1], %i : memref<4xi32, #tile.scope<shared>>, i32
    tile.atomic_min %gh[%bx], %h : memref<?xf16>, f16
    tile.atomic_add %gh[0], %h : memref<?xf16>, f16
  }
  return
}

// -----
// Nested loops: parallel inside pipelined inside the kernel, and back.
func.func @loops(%A: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  tile.kernel (%bx) in (%n) threads(128) {
    %f = tile.alloc_fragment : memref<4x4xf32, #tile.scope<fragment>>
    tile.clear %f : memref<4x4xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %n step %c3 num_stages = 4 {
      tile.copy %A[%k, %bx] to %f : memref<?x?xf32> to memref<4x4xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (4, 4) {
        %v = memref.load %f[%i, %j] : memref<4x4xf32, #tile.scope<fragment>>
        %w = arith.mulf %v, %v : f32
        memref.store %w, %f[%j, %i] : memref<4x4xf32, #tile.scope<fragment>>
      }
      tile.pipelined %m = %k to %n step %n num_stages = 1 {
        tile.parallel (%i) in (1) {
        }
      }
    }
    tile.copy %f to %A[%bx, %bx] : memref<4x4xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}
