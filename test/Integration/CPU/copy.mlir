// tile.copy between global memory and tile buffers: tiles that hang over the
// edges of a global tensor (reads give the pad value, writes are dropped),
// also at negative offsets; rank-reducing copies; element-type conversion.
//
// @pad_read: O [128, 128] (a multiple of the 32x64 tiles) from A [100, 70]:
// each block reads A[m0, n0] with pad = 7.5, so O is A padded with 7.5.
// RUN: tile-run %s --entry=pad_read --seed=1 --arg=f32:100x70 --arg=f32:128x128:poison --save=%t.pad
// RUN: %python %S/check.py %t.pad --out 1 --ref "np.pad(in0, ((0, 28), (0, 58)), constant_values=7.5)" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s --check-prefix=OUT1
//
// @pad_read_neg: the same, reading A[m0 - 3, n0 - 5]: the first blocks' reads
// start before the tensor (negative offsets) and are padded too.
// RUN: tile-run %s --entry=pad_read_neg --seed=2 --arg=f32:100x70 --arg=f32:128x128:poison --save=%t.padneg
// RUN: %python %S/check.py %t.padneg --out 1 --ref "np.pad(in0, ((3, 25), (5, 53)), constant_values=7.5)" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s --check-prefix=OUT1
//
// @write_drop: T [60, 110] holds random data; each block copies a 32x64 tile
// of S [50, 100] (pad -2) to T[m0 + 2, n0 + 3]. Tiles hang over T's bottom
// and right edges: those elements are dropped (not wrapped into the next
// row), and T's first 2 rows and 3 columns keep their values.
// RUN: tile-run %s --entry=write_drop --seed=3 --arg=f32:50x100 --arg=f32:60x110 --save=%t.drop
// RUN: %python %S/check.py %t.drop --out 1 \
// RUN:   --ref "np.where((np.arange(60)[:, None] >= 2) & (np.arange(110)[None, :] >= 3), np.pad(in0, ((2, 8), (3, 7)), constant_values=-2), in1)" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s --check-prefix=OUT1
//
// @write_drop_neg: a 32x64 tile of S (pad 0) to T[m0 - 2, n0 - 3], T [60, 110]
// random: the first tiles start before T (negative offsets); T[r, c] =
// S[r + 2, c + 3] where the tile covers it. S [64, 128]: whole T written.
// S [20, 50]: a single tile covers T's rows [0, 30) and columns [0, 61)
// (beyond S: pad 0), the rest of T keeps its values.
// RUN: tile-run %s --entry=write_drop_neg --seed=4 --arg=f32:64x128 --arg=f32:60x110 --save=%t.dropneg
// RUN: %python %S/check.py %t.dropneg --out 1 --ref "in0[2:62, 3:113]" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s --check-prefix=OUT1
// RUN: tile-run %s --entry=write_drop_neg --seed=5 --arg=f32:20x50 --arg=f32:60x110 --save=%t.dropneg2
// RUN: %python %S/check.py %t.dropneg2 --out 1 \
// RUN:   --ref "np.where((np.arange(60)[:, None] < 30) & (np.arange(110)[None, :] < 61), np.pad(in0[2:, 3:], ((0, 42), (0, 63))), in1)" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s --check-prefix=OUT1
//
// @heads: rank-reducing copies on a 3-d grid (S tiles, H, B): X [B, S, H, D]
// region [1, 64, 1, 32] -> 64x32 shared -> O [B, H, S, D] region
// [1, 1, 64, 32], i.e. O = X.transpose(0, 2, 1, 3); S = 100.
// RUN: tile-run %s --entry=heads --seed=6 --arg=f32:2x100x3x32 --arg=f32:2x3x100x32:poison --save=%t.heads
// RUN: %python %S/check.py %t.heads --out 1 --ref "in0.transpose(0, 2, 1, 3)" --rtol 0 --atol 0 | FileCheck %s --check-prefix=OUT1
//
// @columns: element-wise copies (the tile's last dim is not a buffer's last
// dim): column j of A [100, 37], region [64, 1] with pad 7.5, into a 1-d
// fragment, then to row j of O [37, 128], region [1, 64]: O = A^T padded.
// RUN: tile-run %s --entry=columns --seed=7 --arg=f32:100x37 --arg=f32:37x128:poison --save=%t.cols
// RUN: %python %S/check.py %t.cols --out 1 --ref "np.pad(in0.T, ((0, 0), (0, 28)), constant_values=7.5)" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s --check-prefix=OUT1
//
// @convert: element types converted by copies (A [100, 70] f32, I [100, 70]
// i8, H [100, 70] f16; 64x64 tiles):
//   O3 = f16(A) (global f32 -> shared f16 -> global f16, exact rounding)
//   O4 = bf16(A) (global f32 -> fragment bf16 -> global f32)
//   O5 = f32(I) (global i8 -> fragment f32 -> global f32)
//   O6 = i32(trunc(8 A)) (fragment f32 -> global i32: fptosi)
//   O7 = bf16(H) (global f16 -> shared bf16 -> global bf16)
//   O8 = i8(I) widened and narrowed (i8 -> i32 fragment -> global i8)
// RUN: tile-run %s --entry=convert --seed=8 --arg=f32:100x70 --arg=i8:100x70 --arg=f16:100x70 \
// RUN:   --arg=f16:100x70:poison --arg=f32:100x70:poison --arg=f32:100x70:poison --arg=i32:100x70:poison \
// RUN:   --arg=bf16:100x70:poison --arg=i8:100x70:poison --save=%t.conv
// RUN: %python %S/check.py %t.conv --out 3 --ref "in0.astype(np.float16)" --out 5 --ref "in1" \
// RUN:   --out 6 --ref "np.trunc(in0 * 8)" --out 8 --ref "in1" --rtol 0 --atol 0 | FileCheck %s --check-prefix=CONV
// RUN: %python %S/check.py %t.conv --out 4 --ref "in0" --out 7 --ref "in2" --rtol 4e-3 --atol 0 | FileCheck %s --check-prefix=BF16

// OUT1: out1: ok
// CONV: out3: ok
// CONV: out5: ok
// CONV: out6: ok
// CONV: out8: ok
// BF16: out4: ok
// BF16: out7: ok

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
