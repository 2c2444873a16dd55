//===- ApplyPassConfigs.cpp - tile-apply-pass-configs ---------------------===//
//
// TileLang's kernel-wide pass configs (no TMA, no warp specialization) as
// the per-op attributes the sm_90a lowering reads.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/IR/DiscardableAttrs.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEAPPLYPASSCONFIGS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

#define DEBUG_TYPE "tile-apply-pass-configs"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct TileApplyPassConfigsPass
    : public tile::impl::TileApplyPassConfigsBase<TileApplyPassConfigsPass> {
  using Base::Base;

  void runOnOperation() override {
    Builder b(&getContext());
    ModuleOp module = getOperation();
    if (disableTmaLower)
      module.walk(
          [&](CopyOp copy) { copy->setAttr(kDisableTmaAttr, b.getUnitAttr()); });
    if (disableWarpSpecialized)
      module.walk([&](PipelinedOp loop) {
        loop->setAttr(kWarpSpecializeAttr, b.getBoolAttr(false));
      });
  }
};

} // namespace
