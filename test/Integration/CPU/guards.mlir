// Out-of-bounds accesses of global tensors are guarded (tile-guard-memory-
// access): loads outside read zero or the annotated safe value, stores
// outside are dropped. The rows of a 2-d tensor are 50 wide and the loops
// 64 lanes wide, so an unguarded access past a row's end would land in the
// next row (inside the allocation, so that the damage shows in the result
// instead of corrupting the heap). One call of @guards_all runs them all.
//
// @rows_inc (0): A[r, lane] += 1 for rows 0..5: rows 0..5 become 1, row 6
// stays 0 (unguarded, the first 14 of rows 1..6 would get 2 or 1).
// @rows_copy (1, 2): C[r, lane] = B[r, lane]: lanes 50..63 read 0.
// @rows_safe (1, 3): the same with tile.annotate_safe_value -1 on B.
// @shared_scatter (4, 5): S[1, I[j]] = 1 into a 3x16 shared buffer for
// columns in [-4, 20): those outside are dropped (unguarded, they would land
// in rows 0 and 2); S is copied out.
//
// RUN: tile-run %s --entry=guards_all --seed=3 \
// RUN:   --arg=f32:7x50:zero --arg=f32:7x50 --arg=f32:6x64:poison \
// RUN:   --arg=f32:6x64:poison --arg=i32:64:rand --arg=f32:3x16:poison --save=%t
// RUN: %python %S/check.py %t --out 0 --ref "np.vstack([np.ones((6, 50)), np.zeros((1, 50))])" \
// RUN:   --out 2 --ref "np.pad(in1[:6], ((0, 0), (0, 14)))" \
// RUN:   --out 3 --ref "np.pad(in1[:6], ((0, 0), (0, 14)), constant_values=-1)" \
// RUN:   --out 5 --ref "np.vstack([np.zeros(16), np.isin(np.arange(16), out4), np.zeros(16)])" \
// RUN:   --rtol 0 --atol 0 | FileCheck %s

// CHECK: out0: ok
// CHECK: out2: ok
// CHECK: out3: ok
// CHECK: out5: ok

func.func @rows_inc(%A: memref<7x50xf32>) {
  tile.kernel (%bx) in (1) threads(64) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c6 = arith.constant 6 : index
    scf.for %r = %c0 to %c6 step %c1 {
      tile.parallel (%lane) in (64) {
        %one = arith.constant 1.0 : f32
        %v = memref.load %A[%r, %lane] : memref<7x50xf32>
        %w = arith.addf %v, %one : f32
        memref.store %w, %A[%r, %lane] : memref<7x50xf32>
      }
    }
  }
  return
}

func.func @rows_copy(%B: memref<7x50xf32>, %C: memref<6x64xf32>) {
  tile.kernel (%bx) in (6) threads(64) {
    tile.parallel (%lane) in (64) {
      %v = memref.load %B[%bx, %lane] : memref<7x50xf32>
      memref.store %v, %C[%bx, %lane] : memref<6x64xf32>
    }
  }
  return
}

func.func @rows_safe(%B: memref<7x50xf32>, %C: memref<6x64xf32>) {
  tile.kernel (%bx) in (6) threads(64) {
    %m1 = arith.constant -1.0 : f32
    tile.annotate_safe_value %B, %m1 : memref<7x50xf32>, f32
    tile.parallel (%lane) in (64) {
      %v = memref.load %B[%bx, %lane] : memref<7x50xf32>
      memref.store %v, %C[%bx, %lane] : memref<6x64xf32>
    }
  }
  return
}

func.func @shared_scatter(%I: memref<64xi32>, %O: memref<3x16xf32>) {
  tile.kernel (%bx) in (1) threads(64) {
    %s = tile.alloc_shared : memref<3x16xf32, #tile.scope<shared>>
    tile.clear %s : memref<3x16xf32, #tile.scope<shared>>
    tile.parallel (%j) in (64) {
      %one = arith.constant 1.0 : f32
      %v = memref.load %I[%j] : memref<64xi32>
      // The random integers mapped to [-4, 20); saved back for the check.
      %c24 = arith.constant 24 : i32
      %c4 = arith.constant 4 : i32
      %m = arith.remsi %v, %c24 : i32
      %p = arith.addi %m, %c24 : i32
      %q = arith.remsi %p, %c24 : i32
      %t = arith.subi %q, %c4 : i32
      memref.store %t, %I[%j] : memref<64xi32>
      %i = arith.index_cast %t : i32 to index
      %c1 = arith.constant 1 : index
      memref.store %one, %s[%c1, %i] : memref<3x16xf32, #tile.scope<shared>>
    }
    tile.copy %s to %O : memref<3x16xf32, #tile.scope<shared>> to memref<3x16xf32>
  }
  return
}

func.func @guards_all(%A: memref<7x50xf32>, %B: memref<7x50xf32>, %C: memref<6x64xf32>,
    %D: memref<6x64xf32>, %I: memref<64xi32>, %O: memref<3x16xf32>) {
  call @rows_inc(%A) : (memref<7x50xf32>) -> ()
  call @rows_copy(%B, %C) : (memref<7x50xf32>, memref<6x64xf32>) -> ()
  call @rows_safe(%B, %D) : (memref<7x50xf32>, memref<6x64xf32>) -> ()
  call @shared_scatter(%I, %O) : (memref<64xi32>, memref<3x16xf32>) -> ()
  return
}
