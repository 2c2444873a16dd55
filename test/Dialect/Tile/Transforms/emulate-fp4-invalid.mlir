// RUN: tile-opt %s --tile-emulate-fp4 -split-input-file -verify-diagnostics

// Two f4 elements share a byte: a tensor whose rows have an odd number of
// elements would split a byte between rows.

// expected-error @below {{argument 0 of type 'memref<4x7xf4E2M1FN>': float4_e2m1fn elements are stored two a byte, so a tensor needs an even innermost extent and unit innermost stride}}
func.func @odd_tensor(%A: memref<4x7xf4E2M1FN>) {
  return
}

// -----

func.func @odd_region(%A: memref<4x64xf4E2M1FN>) {
  // expected-error @below {{'memref.subview' op makes a buffer of type 'memref<4x16xf4E2M1FN, strided<[64, 1], offset: 3>>': float4_e2m1fn elements are stored two a byte, so a buffer or view needs an even innermost extent and offset, and unit innermost stride}}
  %s = memref.subview %A[0, 3] [4, 16] [1, 1] : memref<4x64xf4E2M1FN> to memref<4x16xf4E2M1FN, strided<[64, 1], offset: 3>>
  return
}

// -----

// expected-error @below {{argument 0 of type 'memref<4x8xf4E2M1FN, strided<[16, 2]>>'}}
func.func @strided_innermost(%A: memref<4x8xf4E2M1FN, strided<[16, 2]>>) {
  return
}

// -----

func.func @arith_on_fp4(%x: f4E2M1FN, %y: f4E2M1FN) -> f4E2M1FN {
  // expected-error @below {{'arith.addf' op on float4_e2m1fn values is not supported: convert them to a wider float type first}}
  %z = arith.addf %x, %y : f4E2M1FN
  return %z : f4E2M1FN
}

// -----

func.func @odd_shared() {
  %c0 = arith.constant 0 : index
  %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
  // expected-error @below {{'memref.view' op makes a buffer of type 'memref<4x5xf4E2M1FN, #gpu.address_space<workgroup>>'}}
  %s = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x5xf4E2M1FN, #gpu.address_space<workgroup>>
  return
}
