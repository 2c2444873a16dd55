// Block buffers larger than a thread's stack: the CPU target allows 64 MiB of
// shared memory per block, so large tile buffers must work (the lowering
// keeps up to 1 MiB of a block's buffers on the worker's stack and puts the
// rest on the heap, once per worker thread).
//
// @large: an 8 MiB shared buffer and a 2 MiB fragment. Each of the 4 blocks
// fills the whole shared buffer, copies a 64x64 tile of A into its first and
// last corners, reads them back through the fragment and adds them:
// O = A[block rows] + A[block rows] = 2 A.
// RUN: tile-run %s --entry=large --seed=1 --arg=f32:256x64 --arg=f32:256x64:poison --save=%t
// RUN: %python %S/check.py %t --out 1 --ref "2 * in0" --rtol 0 --atol 0 | FileCheck %s
//
// @many: 40 fragments of 256 KiB each (10 MiB in all, each one small): a
// 64x64 tile of A passes through all of them, O = A.
// RUN: tile-run %s --entry=many --seed=2 --arg=f32:256x64 --arg=f32:256x64:poison --save=%t.many
// RUN: %python %S/check.py %t.many --out 1 --ref "in0" --rtol 0 --atol 0 | FileCheck %s

// CHECK: out1: ok

func.func @large(%A: memref<?x64xf32>, %O: memref<?x64xf32>) {
  tile.kernel (%bx) in (4) threads(128) {
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f32
    %s = tile.alloc_shared : memref<2048x1024xf32, #tile.scope<shared>>
    %f = tile.alloc_fragment : memref<512x1024xf32, #tile.scope<fragment>>
    %m0 = arith.muli %bx, %c64 : index
    tile.fill %s, %one : memref<2048x1024xf32, #tile.scope<shared>>, f32
    tile.copy %A[%m0, 0] [64, 64] to %s[0, 0] [64, 64] : memref<?x64xf32> to memref<2048x1024xf32, #tile.scope<shared>>
    tile.copy %A[%m0, 0] [64, 64] to %s[1984, 960] [64, 64] : memref<?x64xf32> to memref<2048x1024xf32, #tile.scope<shared>>
    tile.copy %s[0, 0] [64, 64] to %f[0, 0] [64, 64] : memref<2048x1024xf32, #tile.scope<shared>> to memref<512x1024xf32, #tile.scope<fragment>>
    tile.copy %s[1984, 960] [64, 64] to %f[448, 960] [64, 64] : memref<2048x1024xf32, #tile.scope<shared>> to memref<512x1024xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (64, 64) {
      %c448 = arith.constant 448 : index
      %c960 = arith.constant 960 : index
      %i2 = arith.addi %i, %c448 : index
      %j2 = arith.addi %j, %c960 : index
      %x = memref.load %f[%i, %j] : memref<512x1024xf32, #tile.scope<fragment>>
      %y = memref.load %f[%i2, %j2] : memref<512x1024xf32, #tile.scope<fragment>>
      %z = arith.addf %x, %y : f32
      memref.store %z, %f[%i, %j] : memref<512x1024xf32, #tile.scope<fragment>>
    }
    tile.copy %f[0, 0] [64, 64] to %O[%m0, 0] [64, 64] : memref<512x1024xf32, #tile.scope<fragment>> to memref<?x64xf32>
  }
  return
}


func.func @many(%A: memref<?x64xf32>, %O: memref<?x64xf32>) {
  tile.kernel (%bx) in (4) threads(128) {
    %c64 = arith.constant 64 : index
    %m0 = arith.muli %bx, %c64 : index
    %f0 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f1 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f2 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f3 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f4 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f5 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f6 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f7 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f8 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f9 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f10 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f11 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f12 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f13 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f14 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f15 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f16 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f17 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f18 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f19 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f20 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f21 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f22 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f23 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f24 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f25 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f26 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f27 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f28 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f29 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f30 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f31 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f32 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f33 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f34 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f35 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f36 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f37 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f38 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    %f39 = tile.alloc_fragment : memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %A[%m0, 0] [64, 64] to %f0[0, 0] [64, 64] : memref<?x64xf32> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f0[0, 0] [64, 64] to %f1[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f1[0, 0] [64, 64] to %f2[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f2[0, 0] [64, 64] to %f3[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f3[0, 0] [64, 64] to %f4[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f4[0, 0] [64, 64] to %f5[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f5[0, 0] [64, 64] to %f6[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f6[0, 0] [64, 64] to %f7[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f7[0, 0] [64, 64] to %f8[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f8[0, 0] [64, 64] to %f9[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f9[0, 0] [64, 64] to %f10[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f10[0, 0] [64, 64] to %f11[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f11[0, 0] [64, 64] to %f12[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f12[0, 0] [64, 64] to %f13[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f13[0, 0] [64, 64] to %f14[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f14[0, 0] [64, 64] to %f15[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f15[0, 0] [64, 64] to %f16[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f16[0, 0] [64, 64] to %f17[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f17[0, 0] [64, 64] to %f18[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f18[0, 0] [64, 64] to %f19[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f19[0, 0] [64, 64] to %f20[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f20[0, 0] [64, 64] to %f21[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f21[0, 0] [64, 64] to %f22[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f22[0, 0] [64, 64] to %f23[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f23[0, 0] [64, 64] to %f24[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f24[0, 0] [64, 64] to %f25[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f25[0, 0] [64, 64] to %f26[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f26[0, 0] [64, 64] to %f27[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f27[0, 0] [64, 64] to %f28[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f28[0, 0] [64, 64] to %f29[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f29[0, 0] [64, 64] to %f30[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f30[0, 0] [64, 64] to %f31[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f31[0, 0] [64, 64] to %f32[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f32[0, 0] [64, 64] to %f33[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f33[0, 0] [64, 64] to %f34[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f34[0, 0] [64, 64] to %f35[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f35[0, 0] [64, 64] to %f36[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f36[0, 0] [64, 64] to %f37[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f37[0, 0] [64, 64] to %f38[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f38[0, 0] [64, 64] to %f39[0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<256x256xf32, #tile.scope<fragment>>
    tile.copy %f39[0, 0] [64, 64] to %O[%m0, 0] [64, 64] : memref<256x256xf32, #tile.scope<fragment>> to memref<?x64xf32>
  }
  return
}
