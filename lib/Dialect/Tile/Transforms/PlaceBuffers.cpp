//===- PlaceBuffers.cpp - tile-place-buffers ------------------------------===//
//
// Gives every tile buffer of a GPU kernel the storage of the target, a
// tile.bind_storage of it.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tile-place-buffers"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPLACEBUFFERS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

LogicalResult mlir::tile::checkBuffersPlaced(KernelOp kernel,
                                             StringRef pass) {
  WalkResult left = kernel.walk([&](Operation *op) {
    if (!isa<AllocSharedOp, AllocFragmentOp, AllocLocalOp>(op))
      return WalkResult::advance();
    op->emitOpError() << "has no storage yet; " << pass
                      << " runs on placed buffers (run tile-place-buffers "
                         "first)";
    return WalkResult::interrupt();
  });
  return failure(left.wasInterrupted());
}

namespace {

struct TilePlaceBuffersPass
    : public tile::impl::TilePlaceBuffersBase<TilePlaceBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    auto place = [&](KernelOp kernel, const TargetInfo &info) {
      return info.placeBuffers(rewriter, kernel);
    };
    if (failed(forEachGpuKernel(getOperation(), target, place)))
      signalPassFailure();
  }
};

} // namespace
