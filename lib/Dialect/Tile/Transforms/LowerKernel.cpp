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
    std::unique_ptr<TargetInfo> info =
        TargetInfo::getOrEmitError(target, getOperation());
    if (!info)
      return signalPassFailure();
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    IRRewriter rewriter(&getContext());
    bool ok = true;
    for (KernelOp kernel : kernels)
      ok &= succeeded(info->lowerKernel(rewriter, kernel));
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
