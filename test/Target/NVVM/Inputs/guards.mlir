// Kernels of guards-ptx.test: global accesses over the end of a tensor,
// the same aligned (proven inside), a safe value, a scatter into shared
// memory at data-dependent indices, and a scalar atomic over a region.

// 200 elements in 4 blocks of 64: the accesses are checked.
func.func @tail(%A: memref<200xf32>, %B: memref<200xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    tile.parallel (%lane) in (64) {
      %c64 = arith.constant 64 : index
      %0 = arith.muli %bx, %c64 : index
      %idx = arith.addi %0, %lane : index
      %v = memref.load %B[%idx] : memref<200xf32>
      memref.store %v, %A[%idx] : memref<200xf32>
    }
  }
  return
}

// 256 elements in 4 blocks of 64: proven inside, no check.
func.func @aligned(%A: memref<256xf32>, %B: memref<256xf32>) {
  tile.kernel (%bx) in (4) threads(64) {
    tile.parallel (%lane) in (64) {
      %c64 = arith.constant 64 : index
      %0 = arith.muli %bx, %c64 : index
      %idx = arith.addi %0, %lane : index
      %v = memref.load %B[%idx] : memref<256xf32>
      memref.store %v, %A[%idx] : memref<256xf32>
    }
  }
  return
}

// Rows shifted down by 3 read -2.5 above the tensor's start.
func.func @safe(%A: memref<64x64xf32>, %B: memref<64x64xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    %v = arith.constant -2.5 : f32
    tile.annotate_safe_value %A, %v : memref<64x64xf32>, f32
    tile.parallel (%i, %j) in (64, 64) {
      %c3 = arith.constant 3 : index
      %r = arith.subi %i, %c3 : index
      %x = memref.load %A[%r, %j] : memref<64x64xf32>
      memref.store %x, %B[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// Data-dependent indices into a 16-element shared buffer.
func.func @scatter(%I: memref<64xi32>, %O: memref<16xf32>) {
  tile.kernel (%bx) in (1) threads(64) {
    %s = tile.alloc_shared : memref<16xf32, #tile.scope<shared>>
    tile.clear %s : memref<16xf32, #tile.scope<shared>>
    tile.parallel (%j) in (64) {
      %one = arith.constant 1.0 : f32
      %v = memref.load %I[%j] : memref<64xi32>
      %i = arith.index_cast %v : i32 to index
      memref.store %one, %s[%i] : memref<16xf32, #tile.scope<shared>>
    }
    tile.copy %s to %O : memref<16xf32, #tile.scope<shared>> to memref<16xf32>
  }
  return
}

// 1.0 into every element of each block's 32x32 region.
func.func @region(%A: memref<128x128xf32>) {
  tile.kernel (%bx, %by) in (4, 4) threads(32) {
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %m = arith.muli %bx, %c32 : index
    %n = arith.muli %by, %c32 : index
    tile.atomic_add %A[%m, %n] sizes [32, 32], %one : memref<128x128xf32>, f32
  }
  return
}
