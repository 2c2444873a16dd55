//===- Layouts.h - Fragment layouts of the tensor-core lowerings -*- C++
//-*-===//

#ifndef TILE_DIALECT_TILE_IR_LAYOUTS_H
#define TILE_DIALECT_TILE_IR_LAYOUTS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

namespace mlir::tile {

/// How the warps of a block split an M x N gemm output into warp tiles of
/// whole atomM x atomN atoms; std::nullopt when no split fits. With
/// `repeats` r > 1 (wgmma with fewer warpgroups than 64-row blocks; warpsN
/// is 1) each warpgroup g takes rows 64 r g .. 64 r (g + 1) - 1 as r
/// blocks of 64, and warp q of it rows 16 q .. 16 q + 15 of each block:
/// a warp tile of r 16-row strips 64 rows apart. Warps are numbered along
/// N first (warp w at warp row w / warpsN, column w mod warpsN), but with
/// `warpgroupsAlongN` (wgmma whose warpgroups split N: warpsM = M / 16, a
/// multiple of 4) along M first: warp w at row w mod warpsM, column
/// w / warpsM, so that each warpgroup holds 64 whole rows of one column
/// block.
struct WarpPartition {
  int64_t warpsM, warpsN;
  int64_t repeats = 1;
  bool warpgroupsAlongN = false;
};
/// The warp partition that a gemm's #tile.mma holds: a wgmma's warps
/// (warps = [4 gM, gN]) are warpgroups, along N where gN > 1.
inline WarpPartition getMmaPartition(MmaAttr mma) {
  return WarpPartition{mma.getWarpsM(), mma.getWarpsN(), mma.getRepeats(),
                       mma.getKind() == MmaKind::Wgmma &&
                           mma.getWarpsN() > 1};
}
std::optional<WarpPartition> getWarpPartition(int64_t m, int64_t n,
                                              int64_t warps,
                                              GemmWarpPolicy policy,
                                              int64_t atomM, int64_t atomN);

/// The partition of an M x N x K gemm that sm_90a runs as wgmma: each
/// warpgroup (4 warps) takes 64 or 128 rows (repeats 1 or 2: a 256 x 128
/// tile on two warpgroups), issuing one m64nNk(256 / bits of A)
/// instruction per 64 rows; warp q of a warpgroup holds rows 16q .. 16q +
/// 15 of each 64, which is the mma.sync accumulator layout of {M / 16, 1}
/// warps for one block of 64 per warpgroup. std::nullopt unless the block
/// has M / 16 or (whole warpgroups, N up to 128) M / 32 warps, N is a
/// multiple of 8 up to 256, K a multiple of the instruction's K and A is
/// f16, bf16 or fp8. A block of more warps than M / 16 (a multiple of it,
/// whole warpgroups) splits N over gN = warps / (M / 16) warpgroups per 64
/// rows (warpgroupsAlongN; DeepSeek MLA's 64-row tiles on 256 threads):
/// each an m64n(N / gN) instruction on its column block, N / gN a multiple
/// of 8 up to 256. TileLang's warp policies choose the same split for
/// these blocks (M / 16 warps along M are the most a 64-row block takes).
std::optional<WarpPartition> getWgmmaPartition(int64_t m, int64_t n,
                                               int64_t k, int64_t warps,
                                               Type aElt);

/// The K extent of one wgmma instruction for inputs of `elt` (16 for 16-bit
/// types, 32 for fp8).
int64_t getWgmmaK(Type elt);

/// The accumulator layout of mma.sync m16n8 atoms (4 f32 per thread per
/// atom) tiled over `partition`'s warp tiles (strips 64 rows apart with
/// repeats), with its inverse.
FragmentLayoutAttr getMmaSyncAccumulatorLayout(MLIRContext *ctx, int64_t m,
                                               int64_t n, int64_t threads,
                                               WarpPartition partition);

/// K of the AMD mfma instruction of `atom` x `atom` outputs (32 or 16) for
/// inputs of `bits` bits: 64 bits of inputs a lane for 8- and 16-bit
/// inputs (m32n32k8 / m16n16k16 f16, m32n32k16 / m16n16k32 i8 and fp8), one
/// element for f32 (m32n32k2, m16n16k4).
inline int64_t getMfmaK(int64_t atom, int64_t bits) {
  int64_t laneBits = bits == 32 ? 32 : 64;
  return laneBits * 64 / atom / bits;
}

/// The accumulator layout of AMD mfma instructions of `atom` x `atom`
/// outputs (32: v_mfma_*_32x32x*, 16 elements a lane; 16:
/// v_mfma_*_16x16x*, 4 a lane) on 64-lane wavefronts, tiled over
/// `partition`'s wave tiles (`warpsM` x `warpsN` wavefronts, numbered along
/// N first; atoms row-major in a wave tile, each a run of registers), with
/// its inverse. Within an atom, lane l holds column l mod atom; for 32,
/// register r of it row 8 (r / 4) + 4 (l / 32) + r mod 4 (four blocks of 8
/// rows, lanes 32-63 the lower 4 rows of each); for 16, row 4 (l / 16) + r.
/// Null unless m and n are multiples of the wave tiles of whole atoms and
/// `threads` is 64 wavefronts of the partition.
FragmentLayoutAttr getMfmaAccumulatorLayout(MLIRContext *ctx, int64_t m,
                                            int64_t n, int64_t threads,
                                            WarpPartition partition,
                                            int64_t atom);

/// The layout of a row vector (one value per row: a reduction along the
/// columns) of the M x N mma.sync accumulator layout of `partition`: row i
/// is replicated over the threads that hold row i of the accumulator, at
/// one register per 8 rows of the warp tile (of its strips, with repeats).
FragmentLayoutAttr getMmaSyncRowLayout(MLIRContext *ctx, int64_t m,
                                       int64_t threads,
                                       WarpPartition partition);

/// The layout of a row vector of the M x N mfma accumulator layout of
/// `partition` and `atom` (getMfmaAccumulatorLayout): row i is replicated
/// over the lanes that hold row i of the accumulator (32 lanes of a 32x32
/// atom, 16 of a 16x16 one, in each of the warpsN wavefronts of its wave
/// row), in the register of its place among the lane's rows.
FragmentLayoutAttr getMfmaRowLayout(MLIRContext *ctx, int64_t m,
                                    int64_t threads, WarpPartition partition,
                                    int64_t atom);

/// A layout for an M x N tile reduced along its rows: each row is held by
/// `lanes` lanes of one warp, each lane `vec` consecutive columns at a
/// time (so that loads of a row are contiguous across the lanes), the
/// 32 / lanes rows of a warp side by side and the warps on consecutive row
/// groups. With `lanes` > 32 (a multiple of 32 dividing `threads`) a row
/// spans lanes / 32 warps and threads / lanes rows lie side by side. Null
/// when the shape does not split so (M a multiple of the rows held side by
/// side, N of lanes * vec).
FragmentLayoutAttr getRowSplitLayout(MLIRContext *ctx, int64_t m, int64_t n,
                                     int64_t threads, int64_t lanes,
                                     int64_t vec);

/// The row layout of a 2-D layout (one value per row, replicated over the
/// threads that hold the row): for the tensor-core accumulator layouts (see
/// getMmaSyncRowLayout, getMfmaRowLayout) and the row-split layouts; null
/// for others.
FragmentLayoutAttr getRowLayout(FragmentLayoutAttr layout);

/// The layout of a vector of N elements held as the one row of a 1 x N
/// layout: element j where `layout` keeps element (0, j) (same threads,
/// registers and replication); null unless `layout` is 1 x N with an
/// inverse.
FragmentLayoutAttr getUnitRowVectorLayout(FragmentLayoutAttr layout);

/// Element e (row-major linear index) held by thread e mod T, register
/// e floordiv T, with its inverse.
FragmentLayoutAttr getCyclicLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                   int64_t threads);

/// Every element held by every thread (replicate = threads): element e
/// (row-major linear index) in register e of each thread, owned by thread
/// 0; with its inverse. The layout of a fragment that scalar code reads and
/// writes, each thread its own copy.
FragmentLayoutAttr getReplicatedLayout(MLIRContext *ctx,
                                       ArrayRef<int64_t> shape,
                                       int64_t threads);

/// True when `layout` is getReplicatedLayout of its shape and threads.
bool isReplicatedLayout(FragmentLayoutAttr layout);

/// Name of the discardable attribute that carries a buffer's inferred
/// layout (on tile.alloc_fragment).
inline StringRef getLayoutAttrName() {
  return TileDialect::LayoutAttrHelper::getNameStr();
}

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_LAYOUTS_H
