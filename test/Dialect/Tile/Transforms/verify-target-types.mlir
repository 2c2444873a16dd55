// RUN: tile-opt %s --tile-verify-target=target=cpu -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tile-opt %s --tile-verify-target=target=sm_80 -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tile-opt %s --tile-verify-target=target=sm_90a -split-input-file -verify-diagnostics | FileCheck %s

// The memref types the lowerings meet, checked before they start (their
// type converters would report these without a location): functions and
// host code take global memrefs with the identity or a strided layout;
// buffers in a kernel are global or tile buffers.

// CHECK-LABEL: func.func @strided_arguments
func.func @strided_arguments(%a: memref<?x?xf32, strided<[?, 1], offset: ?>>, %b: memref<4x4xf32, strided<[1, 4]>>, %c: memref<*xf32>) {
  return
}

// -----

// expected-error @below {{argument #0 of @shared_argument has type 'memref<4xf32, #tile.scope<shared>>' in memory space #tile.scope<shared> outside a tile.kernel; functions and host code take global memrefs (no memory space)}}
func.func @shared_argument(%a: memref<4xf32, #tile.scope<shared>>) {
  return
}

// -----

// expected-error @below {{argument #1 of @fragment_argument has type 'memref<4x4xf16, #tile.scope<fragment>>' in memory space #tile.scope<fragment>}}
func.func @fragment_argument(%a: memref<4xf32>, %b: memref<4x4xf16, #tile.scope<fragment>>) {
  return
}

// -----

// expected-error @below {{result #0 of @declared has type 'memref<4xf32, 3>' in memory space 3 : i64 outside a tile.kernel}}
func.func private @declared() -> memref<4xf32, 3>

// -----

// expected-error @below {{argument #0 of @permuted has type 'memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>', whose layout affine_map<(d0, d1) -> (d1, d0)> is not strided}}
func.func @permuted(%a: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, %b: memref<4x4xf32>) {
  tile.kernel (%bx) in (1) threads(128) {
    tile.copy %a[0, 0] [4, 4] to %b[0, 0] [4, 4] : memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>> to memref<4x4xf32>
  }
  return
}

// -----

func.func @host_alloc() {
  // expected-error @below {{'memref.alloca' op result #0 has type 'memref<4xf32, #tile.scope<shared>>' in memory space #tile.scope<shared> outside a tile.kernel}}
  %a = memref.alloca() : memref<4xf32, #tile.scope<shared>>
  return
}

// -----

func.func @foreign_space_in_kernel() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'memref.alloca' op result #0 has type 'memref<4xf32, #gpu.address_space<workgroup>>', whose memory space #gpu.address_space<workgroup> is not a tile scope}}
    %a = memref.alloca() : memref<4xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// tf32 is no storage format: LLVM has no type for it.
func.func @tf32_buffer() {
  tile.kernel (%bx) in (1) threads(128) {
    // expected-error @below {{'tile.alloc_shared' op result #0 has type 'memref<4xtf32, #tile.scope<shared>>'; tf32 has no LLVM type to lower it to: keep the data in f32}}
    %a = tile.alloc_shared : memref<4xtf32, #tile.scope<shared>>
    tile.clear %a : memref<4xtf32, #tile.scope<shared>>
  }
  return
}
