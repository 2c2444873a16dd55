// The flash-attention forward kernel of examples/flash_attention/example_mha_fwd_bshd.py
// (batch 1, 8 heads, seq_len 1024, dim 64, causal; block_M = block_N = 128,
// 128 threads, 2 stages, FullRow gemms), as the Python front end emits it.
module {
  func.func @main(%arg0: memref<1x1024x8x64xf16>, %arg1: memref<1x1024x8x64xf16>, %arg2: memref<1x1024x8x64xf16>, %arg3: memref<1x1024x8x64xf16>) {
    tile.kernel (%bx, %by, %bz) in (8, 8, 1) threads(128) {
      %0 = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
      %1 = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
      %2 = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
      %3 = tile.alloc_shared : memref<128x64xf16, #tile.scope<shared>>
      %4 = tile.alloc_fragment : memref<128x128xf32, #tile.scope<fragment>>
      %5 = tile.alloc_fragment : memref<128x128xf16, #tile.scope<fragment>>
      %6 = tile.alloc_fragment : memref<128x64xf32, #tile.scope<fragment>>
      %7 = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
      %8 = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
      %9 = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
      %10 = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
      %11 = tile.alloc_fragment : memref<128xf32, #tile.scope<fragment>>
      %c128 = arith.constant 128 : index
      %12 = arith.muli %bx, %c128 : index
      %c1 = arith.constant 1 : index
      %13 = arith.addi %bx, %c1 : index
      %c128_0 = arith.constant 128 : index
      %14 = arith.muli %13, %c128_0 : index
      tile.copy %arg0[%bz, %12, %by, 0] [1, 128, 1, 64] to %0 : memref<1x1024x8x64xf16> to memref<128x64xf16, #tile.scope<shared>>
      %cst = arith.constant 0.000000e+00 : f32
      tile.fill %6, %cst : memref<128x64xf32, #tile.scope<fragment>>, f32
      %cst_1 = arith.constant 0.000000e+00 : f32
      tile.fill %11, %cst_1 : memref<128xf32, #tile.scope<fragment>>, f32
      %cst_2 = arith.constant 0x7F800000 : f32
      %15 = arith.negf %cst_2 : f32
      tile.fill %7, %15 : memref<128xf32, #tile.scope<fragment>>, f32
      %c1_3 = arith.constant 1 : index
      %16 = arith.addi %bx, %c1_3 : index
      %c128_4 = arith.constant 128 : index
      %17 = arith.muli %16, %c128_4 : index
      %c127 = arith.constant 127 : index
      %18 = arith.addi %17, %c127 : index
      %c128_5 = arith.constant 128 : index
      %19 = arith.floordivsi %18, %c128_5 : index
      %c8 = arith.constant 8 : index
      %20 = arith.minsi %c8, %19 : index
      %c0 = arith.constant 0 : index
      %c1_6 = arith.constant 1 : index
      tile.pipelined %arg4 = %c0 to %20 step %c1_6 num_stages = 2 {
        %c128_10 = arith.constant 128 : index
        %24 = arith.muli %arg4, %c128_10 : index
        %c1_11 = arith.constant 1 : index
        %25 = arith.addi %arg4, %c1_11 : index
        %c128_12 = arith.constant 128 : index
        %26 = arith.muli %25, %c128_12 : index
        tile.copy %arg1[%bz, %24, %by, 0] [1, 128, 1, 64] to %1 : memref<1x1024x8x64xf16> to memref<128x64xf16, #tile.scope<shared>>
        tile.parallel (%arg5, %arg6) in (128, 128) {
          %c128_17 = arith.constant 128 : index
          %31 = arith.muli %bx, %c128_17 : index
          %32 = arith.addi %31, %arg5 : index
          %c128_18 = arith.constant 128 : index
          %33 = arith.muli %arg4, %c128_18 : index
          %34 = arith.addi %33, %arg6 : index
          %35 = arith.cmpi sge, %32, %34 : index
          %cst_19 = arith.constant 0x7F800000 : f32
          %36 = arith.negf %cst_19 : f32
          %cst_20 = arith.constant 0.000000e+00 : f32
          %37 = arith.select %35, %cst_20, %36 : f32
          memref.store %37, %4[%arg5, %arg6] : memref<128x128xf32, #tile.scope<fragment>>
        }
        tile.gemm %0, %1, %4 {policy = #tile.policy<full_row>, transpose_b} : memref<128x64xf16, #tile.scope<shared>>, memref<128x64xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
        tile.copy %7 to %8 : memref<128xf32, #tile.scope<fragment>> to memref<128xf32, #tile.scope<fragment>>
        %cst_13 = arith.constant 0x7F800000 : f32
        %27 = arith.negf %cst_13 : f32
        tile.fill %7, %27 : memref<128xf32, #tile.scope<fragment>>, f32
        tile.reduce max %4 into %7 dim = 1 {clear = false} : memref<128x128xf32, #tile.scope<fragment>> into memref<128xf32, #tile.scope<fragment>>
        tile.parallel (%arg5) in (128) {
          %31 = memref.load %7[%arg5] : memref<128xf32, #tile.scope<fragment>>
          %32 = memref.load %8[%arg5] : memref<128xf32, #tile.scope<fragment>>
          %33 = arith.maximumf %31, %32 : f32
          memref.store %33, %7[%arg5] : memref<128xf32, #tile.scope<fragment>>
        }
        tile.parallel (%arg5) in (128) {
          %31 = memref.load %8[%arg5] : memref<128xf32, #tile.scope<fragment>>
          %cst_17 = arith.constant 0.180336878 : f32
          %32 = arith.mulf %31, %cst_17 : f32
          %33 = memref.load %7[%arg5] : memref<128xf32, #tile.scope<fragment>>
          %cst_18 = arith.constant 0.180336878 : f32
          %34 = arith.mulf %33, %cst_18 : f32
          %35 = arith.subf %32, %34 : f32
          %36 = math.exp2 %35 : f32
          memref.store %36, %9[%arg5] : memref<128xf32, #tile.scope<fragment>>
        }
        tile.parallel (%arg5, %arg6) in (128, 128) {
          %31 = memref.load %4[%arg5, %arg6] : memref<128x128xf32, #tile.scope<fragment>>
          %cst_17 = arith.constant 0.180336878 : f32
          %32 = arith.mulf %31, %cst_17 : f32
          %33 = memref.load %7[%arg5] : memref<128xf32, #tile.scope<fragment>>
          %cst_18 = arith.constant 0.180336878 : f32
          %34 = arith.mulf %33, %cst_18 : f32
          %35 = arith.subf %32, %34 : f32
          %36 = math.exp2 %35 : f32
          memref.store %36, %4[%arg5, %arg6] : memref<128x128xf32, #tile.scope<fragment>>
        }
        tile.reduce sum %4 into %10 dim = 1 : memref<128x128xf32, #tile.scope<fragment>> into memref<128xf32, #tile.scope<fragment>>
        tile.parallel (%arg5) in (128) {
          %31 = memref.load %11[%arg5] : memref<128xf32, #tile.scope<fragment>>
          %32 = memref.load %9[%arg5] : memref<128xf32, #tile.scope<fragment>>
          %33 = arith.mulf %31, %32 : f32
          %34 = memref.load %10[%arg5] : memref<128xf32, #tile.scope<fragment>>
          %35 = arith.addf %33, %34 : f32
          memref.store %35, %11[%arg5] : memref<128xf32, #tile.scope<fragment>>
        }
        tile.copy %4 to %5 : memref<128x128xf32, #tile.scope<fragment>> to memref<128x128xf16, #tile.scope<fragment>>
        tile.parallel (%arg5, %arg6) in (128, 64) {
          %31 = memref.load %6[%arg5, %arg6] : memref<128x64xf32, #tile.scope<fragment>>
          %32 = memref.load %9[%arg5] : memref<128xf32, #tile.scope<fragment>>
          %33 = arith.mulf %31, %32 : f32
          memref.store %33, %6[%arg5, %arg6] : memref<128x64xf32, #tile.scope<fragment>>
        }
        %c128_14 = arith.constant 128 : index
        %28 = arith.muli %arg4, %c128_14 : index
        %c1_15 = arith.constant 1 : index
        %29 = arith.addi %arg4, %c1_15 : index
        %c128_16 = arith.constant 128 : index
        %30 = arith.muli %29, %c128_16 : index
        tile.copy %arg2[%bz, %28, %by, 0] [1, 128, 1, 64] to %2 : memref<1x1024x8x64xf16> to memref<128x64xf16, #tile.scope<shared>>
        tile.gemm %5, %2, %6 {policy = #tile.policy<full_row>} : memref<128x128xf16, #tile.scope<fragment>>, memref<128x64xf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
      }
      tile.parallel (%arg4, %arg5) in (128, 64) {
        %24 = memref.load %6[%arg4, %arg5] : memref<128x64xf32, #tile.scope<fragment>>
        %25 = memref.load %11[%arg4] : memref<128xf32, #tile.scope<fragment>>
        %26 = arith.divf %24, %25 : f32
        memref.store %26, %6[%arg4, %arg5] : memref<128x64xf32, #tile.scope<fragment>>
      }
      tile.copy %6 to %3 : memref<128x64xf32, #tile.scope<fragment>> to memref<128x64xf16, #tile.scope<shared>>
      %c128_7 = arith.constant 128 : index
      %21 = arith.muli %bx, %c128_7 : index
      %c1_8 = arith.constant 1 : index
      %22 = arith.addi %bx, %c1_8 : index
      %c128_9 = arith.constant 128 : index
      %23 = arith.muli %22, %c128_9 : index
      tile.copy %3 to %arg3[%bz, %21, %by, 0] [1, 128, 1, 64] : memref<128x64xf16, #tile.scope<shared>> to memref<1x1024x8x64xf16>
    }
    return
  }
}

