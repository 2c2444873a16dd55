//===- DiscardableAttrs.h - Per-op switches of the tile dialect -*- C++ -*-===//
//
// Discardable attributes that switch a lowering off for one op (declared,
// with the dialect's other tile.* attributes, in TileDialect.td); the front
// end writes them (T.copy(..., disable_tma=True), T.Pipelined(...,
// warp_specialize=False)), and so does tile-apply-pass-configs for a whole
// module.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_DISCARDABLEATTRS_H
#define TILE_DIALECT_TILE_IR_DISCARDABLEATTRS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "llvm/ADT/StringRef.h"

namespace mlir::tile {

/// On a tile.pipelined: `false` keeps its TMA pipeline (sm_90a) without a
/// producer warpgroup.
constexpr llvm::StringLiteral kWarpSpecializeAttr =
    TileDialect::WarpSpecializeAttrHelper::getNameStr();
/// On a tile.copy: TMA does not perform it (a load stays a cp.async or
/// plain load, an accumulator store goes out with st.global).
constexpr llvm::StringLiteral kDisableTmaAttr =
    TileDialect::DisableTmaAttrHelper::getNameStr();

/// On a tile.kernel: the bytes of dynamic shared memory its placed buffers
/// take from byte 0 on (the pipelines' stage buffers after
/// tile-software-pipeline; all of them, the launch's dynamic shared memory,
/// after tile-plan-scratch).
inline llvm::StringRef getSharedBytesAttrName() {
  return TileDialect::SharedBytesAttrHelper::getNameStr();
}

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_DISCARDABLEATTRS_H
