//===- Layouts.h - Fragment layouts of the tensor-core lowerings -*- C++
//-*-===//

#ifndef TILE_DIALECT_TILE_IR_LAYOUTS_H
#define TILE_DIALECT_TILE_IR_LAYOUTS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

namespace mlir::tile {

/// How the warps of a block split an M x N gemm output into warp tiles of
/// whole atomM x atomN atoms; std::nullopt when no split fits.
struct WarpPartition {
  int64_t warpsM, warpsN;
};
std::optional<WarpPartition> getWarpPartition(int64_t m, int64_t n,
                                              int64_t warps,
                                              GemmWarpPolicy policy,
                                              int64_t atomM, int64_t atomN);

/// The accumulator layout of mma.sync m16n8 atoms (4 f32 per thread per
/// atom) tiled over `partition`'s warp tiles, with its inverse.
FragmentLayoutAttr getMmaSyncAccumulatorLayout(MLIRContext *ctx, int64_t m,
                                               int64_t n, int64_t threads,
                                               WarpPartition partition);

/// Element e (row-major linear index) held by thread e mod T, register
/// e floordiv T, with its inverse.
FragmentLayoutAttr getCyclicLayout(MLIRContext *ctx, ArrayRef<int64_t> shape,
                                   int64_t threads);

/// Name of the discardable attribute that carries a buffer's inferred
/// layout (on tile.alloc_fragment).
inline StringRef getLayoutAttrName() { return "tile.layout"; }

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_LAYOUTS_H
