// Block buffers larger than a thread's stack: the CPU target allows 64 MiB of
// shared memory per block, so an 8 MiB shared buffer (and a 2 MiB fragment)
// must work (the lowering puts large buffers on the heap, once per worker
// thread). Each of the 4 blocks fills the whole shared buffer, copies a
// 64x64 tile of A into its first and last corners, reads them back through
// the fragment and adds them: O = A[block rows] + A[block rows] = 2 A.
// RUN: tile-run %s --entry=large --seed=1 --arg=f32:256x64 --arg=f32:256x64:poison --save=%t
// RUN: %python %S/check.py %t --out 1 --ref "2 * in0" --rtol 0 --atol 0 | FileCheck %s

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
