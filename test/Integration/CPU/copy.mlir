// tile.copy between global memory and tile buffers: tiles that hang over the
// edges of a global tensor (reads give the pad value, writes are dropped),
// also at negative offsets; rank-reducing copies; element-type conversion.
// One call of @copy_all runs every kernel below (one compilation); the
// arguments of each kernel are listed with their numbers (inN / outN).
//
// @pad_read (0, 1): O1 [128, 128] (a multiple of the 32x64 tiles) from
// A [100, 70]: each block reads A[m0, n0] with pad = 7.5, so O1 is A padded
// with 7.5.
// @pad_read_neg (0, 2): the same into O2, reading A[m0 - 3, n0 - 5]: the first
// blocks' reads start before the tensor (negative offsets) and are padded too.
//
// @write_drop (3, 4): T [60, 110] holds random data; each block copies a 32x64
// tile of S [50, 100] (pad -2) to T[m0 + 2, n0 + 3]. Tiles hang over T's
// bottom and right edges: those elements are dropped (not wrapped into the
// next row), and T's first 2 rows and 3 columns keep their values.
//
// @write_drop_neg (5, 6 and 7, 8): a 32x64 tile of S (pad 0) to
// T[m0 - 2, n0 - 3], T [60, 110] random: the first tiles start before T
// (negative offsets); T[r, c] = S[r + 2, c + 3] where the tile covers it.
// S [64, 128]: the whole of T is written. S [20, 50]: a single tile covers T's
// rows [0, 30) and columns [0, 61) (beyond S: pad 0), the rest of T keeps its
// values.
//
// @heads (9, 10): rank-reducing copies on a 3-d grid (S tiles, H, B):
// X [B, S, H, D] region [1, 64, 1, 32] -> 64x32 shared -> O [B, H, S, D]
// region [1, 1, 64, 32], i.e. O = X.transpose(0, 2, 1, 3); S = 100.
//
// @columns (11, 12): element-wise copies (the tile's last dim is not a
// buffer's last dim): column j of A [100, 37], region [64, 1] with pad 7.5,
// into a 1-d fragment, then to row j of O [37, 128], region [1, 64]:
// O = A^T padded with 7.5.
//
// @convert (13 - 21): element types converted by copies (A [100, 70] f32,
// I [100, 70] i8, H [100, 70] f16; 64x64 tiles):
//   O3 (16) = f16(A) (global f32 -> shared f16 -> global f16, exact rounding)
//   O4 (17) = bf16(A) (global f32 -> fragment bf16 -> global f32)
//   O5 (18) = f32(I) (global i8 -> fragment f32 -> global f32)
//   O6 (19) = i32(trunc(8 A)) (fragment f32 -> global i32: fptosi)
//   O7 (20) = bf16(H) (global f16 -> shared bf16 -> global bf16)
//   O8 (21) = I (global i8 -> fragment i32 -> global i8)
//
// @strided (22 - 25): global sides with non-unit innermost strides (copied
// element by element). A [100, 140]; As = subview A[:, ::2] ([100, 70]); the
// blocks copy 32x64 tiles of As (pad 0) to O (23) [100, 70] and to the
// subview Ts = T[:, 1::2] of T (24) [100, 140], limited to 69 columns
// (T's columns 1, 3, ..., 137): column 70 of a tile row is dropped, not
// written to T's column 139; T's even columns and column 139 keep their
// values. And the transposed view of A (memref.transpose, strides [1, ?])
// copied to Ot (25) [140, 100]: Ot = A^T.
//
// RUN: tile-run %s --entry=copy_all --seed=1 \
// RUN:   --arg=f32:100x70 --arg=f32:128x128:poison --arg=f32:128x128:poison \
// RUN:   --arg=f32:50x100 --arg=f32:60x110 \
// RUN:   --arg=f32:64x128 --arg=f32:60x110 --arg=f32:20x50 --arg=f32:60x110 \
// RUN:   --arg=f32:2x100x3x32 --arg=f32:2x3x100x32:poison \
// RUN:   --arg=f32:100x37 --arg=f32:37x128:poison \
// RUN:   --arg=f32:100x70 --arg=i8:100x70 --arg=f16:100x70 \
// RUN:   --arg=f16:100x70:poison --arg=f32:100x70:poison --arg=f32:100x70:poison --arg=i32:100x70:poison \
// RUN:   --arg=bf16:100x70:poison --arg=i8:100x70:poison \
// RUN:   --arg=f32:100x140 --arg=f32:100x70:poison --arg=f32:100x140 --arg=f32:140x100:poison --save=%t
// RUN: %python %S/check.py %t \
// RUN:   --out 1 --ref "np.pad(in0, ((0, 28), (0, 58)), constant_values=7.5)" \
// RUN:   --out 2 --ref "np.pad(in0, ((3, 25), (5, 53)), constant_values=7.5)" \
// RUN:   --out 4 --ref "np.where((np.arange(60)[:, None] >= 2) & (np.arange(110)[None, :] >= 3), np.pad(in3, ((2, 8), (3, 7)), constant_values=-2), in4)" \
// RUN:   --out 6 --ref "in5[2:62, 3:113]" \
// RUN:   --out 8 --ref "np.where((np.arange(60)[:, None] < 30) & (np.arange(110)[None, :] < 61), np.pad(in7[2:, 3:], ((0, 42), (0, 63))), in8)" \
// RUN:   --out 10 --ref "in9.transpose(0, 2, 1, 3)" \
// RUN:   --out 12 --ref "np.pad(in11.T, ((0, 0), (0, 28)), constant_values=7.5)" \
// RUN:   --out 16 --ref "in13.astype(np.float16)" \
// RUN:   --out 18 --ref "in14" \
// RUN:   --out 19 --ref "np.trunc(in13 * 8)" \
// RUN:   --out 21 --ref "in14" \
// RUN:   --out 23 --ref "in22[:, ::2]" \
// RUN:   --out 24 --ref "np.where((np.arange(140) % 2 == 1) & (np.arange(140) < 139), np.roll(in22, 1, axis=1), in24)" \
// RUN:   --out 25 --ref "in22.T" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXACT
// bf16 rounding: within half an ulp (2^-8 relative).
// RUN: %python %S/check.py %t --out 17 --ref "in13" --out 20 --ref "in15" \
// RUN:   --rtol 4e-3 --atol 0 | FileCheck %s --check-prefix=BF16

// EXACT: out1: ok
// EXACT: out2: ok
// EXACT: out4: ok
// EXACT: out6: ok
// EXACT: out8: ok
// EXACT: out10: ok
// EXACT: out12: ok
// EXACT: out16: ok
// EXACT: out18: ok
// EXACT: out19: ok
// EXACT: out21: ok
// EXACT: out23: ok
// EXACT: out24: ok
// EXACT: out25: ok
// BF16: out17: ok
// BF16: out20: ok

func.func @pad_read(%A: memref<?x?xf32>, %O: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %R = memref.dim %O, %c0 : memref<?x?xf32>
  %C = memref.dim %O, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %C, %c64 : index
  %gy = arith.ceildivui %R, %c32 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %A[%m0, %n0] to %s {pad = 7.5 : f32} : memref<?x?xf32> to memref<32x64xf32, #tile.scope<shared>>
    tile.copy %s to %O[%m0, %n0] : memref<32x64xf32, #tile.scope<shared>> to memref<?x?xf32>
  }
  return
}

func.func @pad_read_neg(%A: memref<?x?xf32>, %O: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %R = memref.dim %O, %c0 : memref<?x?xf32>
  %C = memref.dim %O, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %C, %c64 : index
  %gy = arith.ceildivui %R, %c32 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    %n0 = arith.muli %bx, %c64 : index
    %am = arith.subi %m0, %c3 : index
    %an = arith.subi %n0, %c5 : index
    tile.copy %A[%am, %an] to %s {pad = 7.5 : f32} : memref<?x?xf32> to memref<32x64xf32, #tile.scope<shared>>
    tile.copy %s to %O[%m0, %n0] : memref<32x64xf32, #tile.scope<shared>> to memref<?x?xf32>
  }
  return
}

func.func @write_drop(%S: memref<?x?xf32>, %T: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %S, %c0 : memref<?x?xf32>
  %N = memref.dim %S, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c32 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %S[%m0, %n0] to %s {pad = -2.0 : f32} : memref<?x?xf32> to memref<32x64xf32, #tile.scope<shared>>
    %tm = arith.addi %m0, %c2 : index
    %tn = arith.addi %n0, %c3 : index
    tile.copy %s to %T[%tm, %tn] : memref<32x64xf32, #tile.scope<shared>> to memref<?x?xf32>
  }
  return
}

func.func @write_drop_neg(%S: memref<?x?xf32>, %T: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %S, %c0 : memref<?x?xf32>
  %N = memref.dim %S, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c32 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %f = tile.alloc_fragment : memref<32x64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c32 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %S[%m0, %n0] to %f : memref<?x?xf32> to memref<32x64xf32, #tile.scope<fragment>>
    %tm = arith.subi %m0, %c2 : index
    %tn = arith.subi %n0, %c3 : index
    tile.copy %f to %T[%tm, %tn] : memref<32x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @heads(%X: memref<?x?x?x32xf32>, %O: memref<?x?x?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %B = memref.dim %X, %c0 : memref<?x?x?x32xf32>
  %S = memref.dim %X, %c1 : memref<?x?x?x32xf32>
  %H = memref.dim %X, %c2 : memref<?x?x?x32xf32>
  %gx = arith.ceildivui %S, %c64 : index
  tile.kernel (%bx, %h, %b) in (%gx, %H, %B) threads(128) {
    %s = tile.alloc_shared : memref<64x32xf32, #tile.scope<shared>>
    %m0 = arith.muli %bx, %c64 : index
    tile.copy %X[%b, %m0, %h, 0] [1, 64, 1, 32] to %s : memref<?x?x?x32xf32> to memref<64x32xf32, #tile.scope<shared>>
    tile.copy %s to %O[%b, %h, %m0, 0] [1, 1, 64, 32] : memref<64x32xf32, #tile.scope<shared>> to memref<?x?x?x32xf32>
  }
  return
}

func.func @columns(%A: memref<?x?xf32>, %O: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %N = memref.dim %O, %c0 : memref<?x?xf32>
  %R = memref.dim %O, %c1 : memref<?x?xf32>
  %gy = arith.ceildivui %R, %c64 : index
  tile.kernel (%j, %by) in (%N, %gy) threads(128) {
    %v = tile.alloc_fragment : memref<64xf32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    tile.copy %A[%m0, %j] [64, 1] to %v {pad = 7.5 : f32} : memref<?x?xf32> to memref<64xf32, #tile.scope<fragment>>
    tile.copy %v to %O[%j, %m0] [1, 64] : memref<64xf32, #tile.scope<fragment>> to memref<?x?xf32>
  }
  return
}

func.func @convert(%A: memref<?x?xf32>, %I: memref<?x?xi8>, %H: memref<?x?xf16>,
                   %O3: memref<?x?xf16>, %O4: memref<?x?xf32>, %O5: memref<?x?xf32>,
                   %O6: memref<?x?xi32>, %O7: memref<?x?xbf16>, %O8: memref<?x?xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %N = memref.dim %A, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %c64 : index
  %gy = arith.ceildivui %M, %c64 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %h = tile.alloc_shared : memref<64x64xf16, #tile.scope<shared>>
    %bf = tile.alloc_fragment : memref<64x64xbf16, #tile.scope<fragment>>
    %f = tile.alloc_fragment : memref<64x64xf32, #tile.scope<fragment>>
    %bs = tile.alloc_shared : memref<64x64xbf16, #tile.scope<shared>>
    %i32 = tile.alloc_fragment : memref<64x64xi32, #tile.scope<fragment>>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %A[%m0, %n0] to %h : memref<?x?xf32> to memref<64x64xf16, #tile.scope<shared>>
    tile.copy %h to %O3[%m0, %n0] : memref<64x64xf16, #tile.scope<shared>> to memref<?x?xf16>
    tile.copy %A[%m0, %n0] to %bf : memref<?x?xf32> to memref<64x64xbf16, #tile.scope<fragment>>
    tile.copy %bf to %O4[%m0, %n0] : memref<64x64xbf16, #tile.scope<fragment>> to memref<?x?xf32>
    tile.copy %I[%m0, %n0] to %f : memref<?x?xi8> to memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %f to %O5[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xf32>
    tile.copy %A[%m0, %n0] to %f : memref<?x?xf32> to memref<64x64xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %c8 = arith.constant 8.0 : f32
      %x = memref.load %f[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
      %y = arith.mulf %x, %c8 : f32
      memref.store %y, %f[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %f to %O6[%m0, %n0] : memref<64x64xf32, #tile.scope<fragment>> to memref<?x?xi32>
    tile.copy %H[%m0, %n0] to %bs : memref<?x?xf16> to memref<64x64xbf16, #tile.scope<shared>>
    tile.copy %bs to %O7[%m0, %n0] : memref<64x64xbf16, #tile.scope<shared>> to memref<?x?xbf16>
    tile.copy %I[%m0, %n0] to %i32 : memref<?x?xi8> to memref<64x64xi32, #tile.scope<fragment>>
    tile.copy %i32 to %O8[%m0, %n0] : memref<64x64xi32, #tile.scope<fragment>> to memref<?x?xi8>
  }
  return
}

func.func @strided(%A: memref<?x?xf32>, %O: memref<?x?xf32>, %T: memref<?x?xf32>, %Ot: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %N = memref.dim %A, %c1 : memref<?x?xf32>
  %h = arith.divui %N, %c2 : index
  %h1 = arith.subi %h, %c1 : index
  %As = memref.subview %A[0, 0] [%M, %h] [1, 2] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 2]>>
  %Ts = memref.subview %T[0, 1] [%M, %h1] [1, 2] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 2], offset: 1>>
  %At = memref.transpose %A (d0, d1) -> (d1, d0) : memref<?x?xf32> to memref<?x?xf32, strided<[1, ?]>>
  %gx = arith.ceildivui %h, %c64 : index
  %gy = arith.ceildivui %M, %c32 : index
  tile.kernel (%bx, %by) in (%gx, %gy) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %As[%m0, %n0] to %s : memref<?x?xf32, strided<[?, 2]>> to memref<32x64xf32, #tile.scope<shared>>
    tile.copy %s to %O[%m0, %n0] : memref<32x64xf32, #tile.scope<shared>> to memref<?x?xf32>
    tile.copy %s to %Ts[%m0, %n0] : memref<32x64xf32, #tile.scope<shared>> to memref<?x?xf32, strided<[?, 2], offset: 1>>
  }
  %tx = arith.ceildivui %M, %c64 : index
  %ty = arith.ceildivui %N, %c32 : index
  tile.kernel (%bx, %by) in (%tx, %ty) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf32, #tile.scope<shared>>
    %m0 = arith.muli %by, %c32 : index
    %n0 = arith.muli %bx, %c64 : index
    tile.copy %At[%m0, %n0] to %s : memref<?x?xf32, strided<[1, ?]>> to memref<32x64xf32, #tile.scope<shared>>
    tile.copy %s to %Ot[%m0, %n0] : memref<32x64xf32, #tile.scope<shared>> to memref<?x?xf32>
  }
  return
}

func.func @copy_all(%A: memref<?x?xf32>, %O1: memref<?x?xf32>, %O2: memref<?x?xf32>,
    %S3: memref<?x?xf32>, %T3: memref<?x?xf32>, %S4: memref<?x?xf32>, %T4: memref<?x?xf32>, %S5: memref<?x?xf32>, %T5: memref<?x?xf32>,
    %X: memref<?x?x?x32xf32>, %XO: memref<?x?x?x32xf32>, %A7: memref<?x?xf32>, %O7: memref<?x?xf32>,
    %CA: memref<?x?xf32>, %CI: memref<?x?xi8>, %CH: memref<?x?xf16>,
    %C3: memref<?x?xf16>, %C4: memref<?x?xf32>, %C5: memref<?x?xf32>,
    %C6: memref<?x?xi32>, %C7: memref<?x?xbf16>, %C8: memref<?x?xi8>,
    %SA: memref<?x?xf32>, %SO: memref<?x?xf32>, %ST: memref<?x?xf32>, %SOt: memref<?x?xf32>) {
  call @pad_read(%A, %O1) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @pad_read_neg(%A, %O2) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @write_drop(%S3, %T3) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @write_drop_neg(%S4, %T4) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @write_drop_neg(%S5, %T5) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @heads(%X, %XO) : (memref<?x?x?x32xf32>, memref<?x?x?x32xf32>) -> ()
  call @columns(%A7, %O7) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  call @convert(%CA, %CI, %CH, %C3, %C4, %C5, %C6, %C7, %C8)
      : (memref<?x?xf32>, memref<?x?xi8>, memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>,
         memref<?x?xf32>, memref<?x?xi32>, memref<?x?xbf16>, memref<?x?xi8>) -> ()
  call @strided(%SA, %SO, %ST, %SOt) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}
