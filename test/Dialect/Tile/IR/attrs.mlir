// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trips of every attribute of the tile dialect and every value of its
// enums, as discardable attributes and (for #tile.scope) as memory spaces.

// CHECK-LABEL: func.func @scope
// CHECK-SAME: attributes {a = #tile.scope<shared>, b = #tile.scope<fragment>, c = #tile.scope<local>}
func.func @scope() attributes {a = #tile.scope<shared>, b = #tile.scope<fragment>, c = #tile.scope<local>} {
  return
}

// As a memref memory space, including with a non-identity layout (allowed
// on function arguments; tile.alloc_* require the identity layout).
// CHECK-LABEL: func.func @scope_memory_space
// CHECK-SAME: memref<4xf32, #tile.scope<shared>>
// CHECK-SAME: memref<4x4xf16, #tile.scope<fragment>>
// CHECK-SAME: memref<1xi32, #tile.scope<local>>
// CHECK-SAME: memref<4x4xf32, strided<[8, 1]>, #tile.scope<shared>>
func.func @scope_memory_space(%a: memref<4xf32, #tile.scope<shared>>, %b: memref<4x4xf16, #tile.scope<fragment>>, %c: memref<1xi32, #tile.scope<local>>, %d: memref<4x4xf32, strided<[8, 1]>, #tile.scope<shared>>) {
  return
}

// CHECK-LABEL: func.func @policy
// CHECK-SAME: attributes {a = #tile.policy<square>, b = #tile.policy<full_row>, c = #tile.policy<full_col>}
func.func @policy() attributes {a = #tile.policy<square>, b = #tile.policy<full_row>, c = #tile.policy<full_col>} {
  return
}

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: attributes {a = #tile.reduce<sum>, b = #tile.reduce<max>, c = #tile.reduce<min>, d = #tile.reduce<abssum>, e = #tile.reduce<absmax>}
func.func @reduce() attributes {a = #tile.reduce<sum>, b = #tile.reduce<max>, c = #tile.reduce<min>, d = #tile.reduce<abssum>, e = #tile.reduce<absmax>} {
  return
}

// CHECK-LABEL: func.func @copy_inst
// CHECK-SAME: attributes {a = #tile.copy_inst<auto>, b = #tile.copy_inst<vector>, c = #tile.copy_inst<cp_async>, d = #tile.copy_inst<tma>, e = #tile.copy_inst<ldmatrix>, f = #tile.copy_inst<stmatrix>}
func.func @copy_inst() attributes {a = #tile.copy_inst<auto>, b = #tile.copy_inst<vector>, c = #tile.copy_inst<cp_async>, d = #tile.copy_inst<tma>, e = #tile.copy_inst<ldmatrix>, f = #tile.copy_inst<stmatrix>} {
  return
}

// CHECK-LABEL: func.func @fragment
// The mma.sync m16n8 C layout.
// CHECK-SAME: a = #tile.fragment<[16, 8], threads = 32, (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2, d1 mod 2 + (d0 floordiv 8) * 2)>
// replicate = 1 is the default and is not printed.
// CHECK-SAME: b = #tile.fragment<[4], threads = 4, (d0) -> (d0, 0)>
// CHECK-SAME: c = #tile.fragment<[4], threads = 8, (d0) -> (d0, 0), replicate = 2>
// Three dimensions, all threads of a block.
// CHECK-SAME: d = #tile.fragment<[2, 4, 16], threads = 128, (d0, d1, d2) -> (d1 * 32 + d2 * 2 + d0, 0)>
// Several registers per thread.
// CHECK-SAME: e = #tile.fragment<[8, 8], threads = 8, (d0, d1) -> (d0, d1)>
// Too large to be enumerated by the verifier: accepted as is.
// CHECK-SAME: f = #tile.fragment<[2048, 1024], threads = 1, (d0, d1) -> (0, d0 * 1024 + d1)>
// A row layout: replicas placed by the inverse (4 lanes per row).
// CHECK-SAME: g = #tile.fragment<[16], threads = 32, (d0) -> ((d0 mod 8) * 4, d0 floordiv 8), replicate = 4, inverse = (d0, d1) -> (d1 * 8 + d0 floordiv 4)>
func.func @fragment() attributes {
    a = #tile.fragment<[16, 8], threads = 32, (d0, d1) -> ((d0 mod 8) * 4 + (d1 mod 8) floordiv 2, (d1 mod 2) + (d0 floordiv 8) * 2)>,
    b = #tile.fragment<[4], threads = 4, (d0) -> (d0, 0), replicate = 1>,
    c = #tile.fragment<[4], threads = 8, (d0) -> (d0, 0), replicate = 2>,
    d = #tile.fragment<[2, 4, 16], threads = 128, (d0, d1, d2) -> (d1 * 32 + d2 * 2 + d0, 0)>,
    e = #tile.fragment<[8, 8], threads = 8, (d0, d1) -> (d0, d1)>,
    f = #tile.fragment<[2048, 1024], threads = 1, (d0, d1) -> (0, d0 * 1024 + d1)>,
    g = #tile.fragment<[16], threads = 32, (d0) -> ((d0 mod 8) * 4, d0 floordiv 8), replicate = 4, inverse = (d0, d1) -> (d1 * 8 + d0 floordiv 4)>} {
  return
}

// CHECK-LABEL: func.func @swizzle
// CHECK-SAME: attributes {a = #tile.swizzle<3, 4, 3>, b = #tile.swizzle<2, 4, 3>, c = #tile.swizzle<1, 4, 3>, d = #tile.swizzle<0, 0, 0>, e = #tile.swizzle<8, 8, 16>}
func.func @swizzle() attributes {a = #tile.swizzle<3, 4, 3>, b = #tile.swizzle<2, 4, 3>, c = #tile.swizzle<1, 4, 3>, d = #tile.swizzle<0, 0, 0>, e = #tile.swizzle<8, 8, 16>} {
  return
}

// Attributes nested in arrays and dictionaries.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: attributes {a = [#tile.scope<shared>, #tile.copy_inst<tma>], b = {p = #tile.policy<full_row>, s = #tile.swizzle<3, 4, 3>}}
func.func @nested() attributes {a = [#tile.scope<shared>, #tile.copy_inst<tma>], b = {p = #tile.policy<full_row>, s = #tile.swizzle<3, 4, 3>}} {
  return
}

// #tile.mma: both kinds, with and without repeats (printed only when > 1).
// CHECK-LABEL: func.func @mma
// CHECK-SAME: attributes {a = #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>, b = #tile.mma<mma_sync, m16n8k8, warps = [4, 1]>, c = #tile.mma<wgmma, m64n256k16, warps = [4, 1]>, d = #tile.mma<wgmma, m64n128k32, warps = [8, 1], repeats = 2>, e = #tile.mma<mma_sync, m16n8k32, warps = [1, 4]>}
func.func @mma() attributes {a = #tile.mma<mma_sync, m16n8k16, warps = [2, 2]>, b = #tile.mma<mma_sync, m16n8k8, warps = [4, 1], repeats = 1>, c = #tile.mma<wgmma, m64n256k16, warps = [4, 1]>, d = #tile.mma<wgmma, m64n128k32, warps = [8, 1], repeats = 2>, e = #tile.mma<mma_sync, m16n8k32, warps = [1, 4]>} {
  return
}
