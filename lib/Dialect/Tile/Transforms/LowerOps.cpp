//===- LowerOps.cpp - tile-lower-ops --------------------------------------===//
//
// Lowers every tile op except tile.kernel with the patterns of the target.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Utils.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tile-lower-ops"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWEROPS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct TileLowerOpsPass
    : public tile::impl::TileLowerOpsBase<TileLowerOpsPass> {
  using Base::Base;

  LogicalResult lower(const TargetInfo &info) {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    auto prepare = [&](KernelOp kernel, const TargetInfo &info) {
      if (failed(info.prepareLowerOps(rewriter, kernel)))
        return failure();
      // On GPUs the buffers have their storage (tile-place-buffers and the
      // passes after it): the patterns read it.
      return success(!info.isGPU() ||
                     succeeded(checkBuffersPlaced(kernel, getArgument())));
    };
    if (failed(forEachKernel(module, info, prepare)))
      return failure();
    RewritePatternSet patterns(&getContext());
    info.populateLowerOpsPatterns(patterns);
    populateMakeTensorPatterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return module.emitError() << "tile-lower-ops did not converge";
    // Whatever is left has no lowering on this target (the greedy driver
    // erased the kernels that had become dead; forEachKernel collects the
    // ones that are left).
    auto finish = [&](KernelOp kernel, const TargetInfo &info) {
      return info.finishLowerOps(rewriter, kernel);
    };
    bool ok = succeeded(forEachKernel(module, info, finish));
    module.walk([&](Operation *op) {
      if (isa<TileDialect>(op->getDialect()) &&
          !isa<KernelOp, YieldOp, BindStorageOp>(op)) {
        op->emitOpError() << "cannot be lowered for target '" << info.getName()
                          << "'";
        ok = false;
      }
    });
    return success(ok);
  }

  void runOnOperation() override {
    if (failed(withTarget(getOperation(), target,
                          [&](const TargetInfo &info) { return lower(info); })))
      signalPassFailure();
  }
};

} // namespace
