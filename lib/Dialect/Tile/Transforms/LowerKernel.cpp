//===- LowerKernel.cpp - tile-lower-kernel --------------------------------===//
//
// Replaces each tile.kernel by the target's way of running a grid of blocks.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tile-lower-kernel"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERKERNEL
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct TileLowerKernelPass
    : public tile::impl::TileLowerKernelBase<TileLowerKernelPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    auto lower = [&](KernelOp kernel, const TargetInfo &info) {
      return info.lowerKernel(rewriter, kernel);
    };
    if (failed(forEachKernel(getOperation(), target, lower)))
      signalPassFailure();
  }
};

} // namespace
