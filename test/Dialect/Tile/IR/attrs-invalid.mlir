// RUN: tile-opt %s -split-input-file -verify-diagnostics

// #tile.fragment

// expected-error @below {{fragment layout needs a shape of rank >= 1}}
func.func @empty_shape() attributes {a = #tile.fragment<[], threads = 4, () -> (0, 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout shape must be positive, got 0}}
func.func @zero_dim() attributes {a = #tile.fragment<[4, 0], threads = 4, (d0, d1) -> (d0, d1)>} {
  return
}

// -----

// expected-error @below {{fragment layout shape must be positive, got -4}}
func.func @negative_dim() attributes {a = #tile.fragment<[-4], threads = 4, (d0) -> (d0, 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout needs threads > 0, got 0}}
func.func @zero_threads() attributes {a = #tile.fragment<[4], threads = 0, (d0) -> (d0, 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout replicate (3) must be positive and divide threads (4)}}
func.func @replicate_not_dividing() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (0, d0), replicate = 3>} {
  return
}

// -----

// expected-error @below {{fragment layout replicate (0) must be positive and divide threads (4)}}
func.func @replicate_zero() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (0, d0), replicate = 0>} {
  return
}

// -----

// expected-error @below {{fragment layout map must take 2 dims, no symbols, and give 2 results (thread, register), got affine_map<(d0) -> (d0, 0)>}}
func.func @map_dims() attributes {a = #tile.fragment<[4, 4], threads = 16, (d0) -> (d0, 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout map must take 1 dims, no symbols, and give 2 results (thread, register), got affine_map<(d0)[s0] -> (d0, s0)>}}
func.func @map_symbols() attributes {a = #tile.fragment<[4], threads = 4, (d0)[s0] -> (d0, s0)>} {
  return
}

// -----

// expected-error @below {{fragment layout map must take 1 dims, no symbols, and give 2 results (thread, register), got affine_map<(d0) -> (d0)>}}
func.func @map_one_result() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (d0)>} {
  return
}

// -----

// expected-error @below {{fragment layout map must take 1 dims, no symbols, and give 2 results (thread, register), got affine_map<(d0) -> (d0, 0, 0)>}}
func.func @map_three_results() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (d0, 0, 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout map divides by 0; mod, floordiv and ceildiv need a positive constant divisor}}
func.func @floordiv_zero() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (d0 floordiv 0, 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout map divides by 0; mod, floordiv and ceildiv need a positive constant divisor}}
func.func @mod_zero() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (0, d0 mod 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout map divides by -5; mod, floordiv and ceildiv need a positive constant divisor}}
func.func @mod_negative() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (d0 mod -5, 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout map divides by -1; mod, floordiv and ceildiv need a positive constant divisor}}
func.func @ceildiv_negative() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (0, d0 ceildiv -1)>} {
  return
}

// -----

// expected-error @below {{fragment layout map overflows at element [1]}}
func.func @overflow() attributes {a = #tile.fragment<[2], threads = 2, (d0) -> (0, d0 * 9223372036854775807 + 9223372036854775807)>} {
  return
}

// -----

// expected-error @below {{fragment layout maps element [4] to thread 4, register 0; expected a thread in [0, 4) and a register >= 0}}
func.func @thread_out_of_range() attributes {a = #tile.fragment<[8], threads = 4, (d0) -> (d0, 0)>} {
  return
}

// -----

// With replicate = 2 only the first threads / 2 threads are owners.
// expected-error @below {{fragment layout maps element [4] to thread 4, register 0; expected a thread in [0, 4) and a register >= 0}}
func.func @thread_not_owner() attributes {a = #tile.fragment<[8], threads = 8, (d0) -> (d0, 0), replicate = 2>} {
  return
}

// -----

// expected-error @below {{fragment layout maps element [0] to thread -1, register 0; expected a thread in [0, 4) and a register >= 0}}
func.func @negative_thread() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (d0 - 1, 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout maps element [0] to thread 0, register -2; expected a thread in [0, 4) and a register >= 0}}
func.func @negative_register() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (0, d0 - 2)>} {
  return
}

// -----

// expected-error @below {{fragment layout maps element [0, 1] to (thread 0, register 0), which another element already uses}}
func.func @duplicate_slot() attributes {a = #tile.fragment<[4, 4], threads = 4, (d0, d1) -> (d0, 0)>} {
  return
}

// -----

// expected-error @below {{fragment layout maps element [2] to (thread 0, register 0), which another element already uses}}
func.func @duplicate_slot_mod() attributes {a = #tile.fragment<[4], threads = 2, (d0) -> (d0 mod 2, d0 floordiv 4)>} {
  return
}

// -----

// expected-error @below {{expected 'threads'}}
func.func @missing_threads() attributes {a = #tile.fragment<[4], (d0) -> (d0, 0)>} {
  return
}

// -----

// #tile.swizzle

// expected-error @below {{swizzle parameters must be non-negative, got <-1, 4, 3>}}
func.func @swizzle_negative() attributes {a = #tile.swizzle<-1, 4, 3>} {
  return
}

// -----

// expected-error @below {{swizzle parameters must be non-negative, got <3, 4, -3>}}
func.func @swizzle_negative_shift() attributes {a = #tile.swizzle<3, 4, -3>} {
  return
}

// -----

// expected-error @below {{swizzle shift (2) must be at least bits (3) so that the XOR source and target bits do not overlap}}
func.func @swizzle_overlap() attributes {a = #tile.swizzle<3, 4, 2>} {
  return
}

// -----

// expected-error @below {{swizzle touches bits beyond 32: <8, 10, 16>}}
func.func @swizzle_too_wide() attributes {a = #tile.swizzle<8, 10, 16>} {
  return
}

// -----

// expected-error @below {{expected ','}}
func.func @swizzle_two_params() attributes {a = #tile.swizzle<3, 4>} {
  return
}

// -----

// Enum attributes

// expected-error @below {{expected ::mlir::tile::Scope to be one of: shared, fragment, local}}
// expected-error @below {{failed to parse Tile_ScopeAttr parameter 'value' which is to be a `::mlir::tile::Scope`}}
func.func @scope_global() attributes {a = #tile.scope<global>} {
  return
}

// -----

// expected-error @below {{expected ::mlir::tile::GemmWarpPolicy to be one of: square, full_row, full_col}}
// expected-error @below {{failed to parse Tile_GemmWarpPolicyAttr parameter 'value' which is to be a `::mlir::tile::GemmWarpPolicy`}}
func.func @policy_unknown() attributes {a = #tile.policy<diagonal>} {
  return
}

// -----

// expected-error @below {{expected ::mlir::tile::ReduceKind to be one of: sum, max, min, abssum, absmax}}
// expected-error @below {{failed to parse Tile_ReduceKindAttr parameter 'value' which is to be a `::mlir::tile::ReduceKind`}}
func.func @reduce_unknown() attributes {a = #tile.reduce<prod>} {
  return
}

// -----

// expected-error @below {{expected ::mlir::tile::CopyInst to be one of: auto, vector, cp_async, tma, ldmatrix, stmatrix}}
// expected-error @below {{failed to parse Tile_CopyInstAttr parameter 'value' which is to be a `::mlir::tile::CopyInst`}}
func.func @copy_inst_unknown() attributes {a = #tile.copy_inst<bulk_async>} {
  return
}

// -----

// expected-error @below {{unknown attribute `placement` in dialect `tile`}}
func.func @unknown_mnemonic() attributes {a = #tile.placement<1>} {
  return
}

// -----

// expected-error @below {{expected 'replicate' or 'inverse' (once each, in that order), got 'inverse'}}
func.func @inverse_twice() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (d0, 0), inverse = (d0, d1) -> (d0), inverse = (d0, d1) -> (d0)>} {
  return
}

// -----

// expected-error @below {{expected 'replicate' or 'inverse' (once each, in that order), got 'swizzle'}}
func.func @unknown_key() attributes {a = #tile.fragment<[4], threads = 4, (d0) -> (d0, 0), swizzle = 2>} {
  return
}

// -----

// With replicate > 1 and an inverse, the inverse places every copy: each
// slot must hold an element at the register the map gives it.
// expected-error @below {{fragment layout inverse maps (thread 0, register 1) to element [1], which the map places in another register}}
func.func @replica_in_wrong_register() attributes {a = #tile.fragment<[2], threads = 2, (d0) -> (d0, 0), replicate = 2, inverse = (d0, d1) -> ((d0 + d1) mod 2)>} {
  return
}

// -----

// expected-error @below {{fragment layout inverse maps (thread 2, register 0) to element [2], which is outside the shape}}
func.func @replica_outside() attributes {a = #tile.fragment<[2], threads = 4, (d0) -> (d0, 0), replicate = 2, inverse = (d0, d1) -> (d0)>} {
  return
}

// -----

// Element 0 is held 3 times, element 1 once.
// expected-error @below {{fragment layout holds element 0 (row-major) 3 times; replicate = 2}}
func.func @replica_count() attributes {a = #tile.fragment<[2], threads = 4, (d0) -> (d0, 0), replicate = 2, inverse = (d0, d1) -> ((d0 mod 3) mod 2)>} {
  return
}

// -----

// expected-error @below {{fragment layout with replicate = 3 holds 9 element copies, not a multiple of the 6 threads}}
func.func @replica_total() attributes {a = #tile.fragment<[3], threads = 6, (d0) -> (d0, 0), replicate = 3, inverse = (d0, d1) -> (d0 mod 3)>} {
  return
}

// -----

// #tile.layout

// expected-error @below {{tensor layout holds 128 elements in a physical shape of 64}}
func.func @layout_sizes() attributes {a = #tile.layout<[16, 8] -> [8, 8], (d0, d1) -> (d1, d0)>} {
  return
}

// -----

// expected-error @below {{tensor layout map must take 2 dims, no symbols, and give 2 results}}
func.func @layout_results() attributes {a = #tile.layout<[16, 8] -> [8, 16], (d0, d1) -> (d1)>} {
  return
}

// -----

// expected-error @below {{tensor layout maps element [0, 2] outside the physical shape [8, 16] (result 0 is 8)}}
func.func @layout_outside() attributes {a = #tile.layout<[16, 8] -> [8, 16], (d0, d1) -> (d1 * 4, d0)>} {
  return
}

// -----

// expected-error @below {{tensor layout maps element [0, 1] to the place of another element}}
func.func @layout_not_one_to_one() attributes {a = #tile.layout<[16, 8] -> [8, 16], (d0, d1) -> (d1 floordiv 2, d0)>} {
  return
}

// -----

// expected-error @below {{tensor layout physical shape must be positive, got 0}}
func.func @layout_empty() attributes {a = #tile.layout<[16, 8] -> [0, 16], (d0, d1) -> (d1, d0)>} {
  return
}

// -----

// expected-error @below {{expected 'mma_sync', 'wgmma' or 'mfma', got 'wmma'}}
func.func @mma_kind() attributes {a = #tile.mma<wmma, m16n8k16, warps = [1, 1]>} {
  return
}

// -----

// expected-error @below {{expected the instruction shape as mMnNkK (e.g. m16n8k16)}}
func.func @mma_shape_syntax() attributes {a = #tile.mma<mma_sync, m16k16, warps = [1, 1]>} {
  return
}

// -----

// expected-error @below {{mma_sync has the shapes m16n8k8, m16n8k16 and m16n8k32, got m16n16k16}}
func.func @mma_sync_shape() attributes {a = #tile.mma<mma_sync, m16n16k16, warps = [1, 1]>} {
  return
}

// -----

// expected-error @below {{wgmma has the shapes m64nNk16 and m64nNk32 with N a multiple of 8 up to 256, got m64n260k16}}
func.func @wgmma_shape() attributes {a = #tile.mma<wgmma, m64n260k16, warps = [4, 1]>} {
  return
}

// -----

// expected-error @below {{warps and repeats must be positive, got warps = [0, 4], repeats = 1}}
func.func @mma_no_warps() attributes {a = #tile.mma<mma_sync, m16n8k16, warps = [0, 4]>} {
  return
}

// -----

// expected-error @below {{repeats > 1 (strips 64 rows apart) needs warps stacked along M (warps = [4, 1]), got warps = [4, 2]}}
func.func @mma_repeats() attributes {a = #tile.mma<mma_sync, m16n8k16, warps = [4, 2], repeats = 2>} {
  return
}

// -----

// expected-error @below {{wgmma runs on whole warpgroups, stacked along M (warps = [4 g, 1]) or also along N (warps = [4 gM, gN]), got warps = [2, 2]}}
func.func @wgmma_warps() attributes {a = #tile.mma<wgmma, m64n64k16, warps = [2, 2]>} {
  return
}

// -----

// Warpgroups along N take one 64-row block each.
// expected-error @below {{repeats > 1 (strips 64 rows apart) needs warps stacked along M (warps = [4, 1]), got warps = [4, 2]}}
func.func @wgmma_along_n_repeats() attributes {a = #tile.mma<wgmma, m64n32k16, warps = [4, 2], repeats = 2>} {
  return
}
