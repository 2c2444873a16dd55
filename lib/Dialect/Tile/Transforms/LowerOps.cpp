//===- LowerOps.cpp - tile-lower-ops --------------------------------------===//
//
// Lowers every tile op except tile.kernel with the patterns of the target.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"
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

  void runOnOperation() override {
    std::unique_ptr<TargetInfo> info =
        TargetInfo::getOrEmitError(target, getOperation());
    if (!info)
      return signalPassFailure();
    SmallVector<KernelOp> kernels;
    getOperation().walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    IRRewriter rewriter(&getContext());
    for (KernelOp kernel : kernels) {
      if (failed(info->prepareLowerOps(rewriter, kernel)))
        return signalPassFailure();
      // The placed buffers (with the pipelines' stage buffers, barriers and
      // alignment) must fit: tile-verify-target only estimates them.
      if (auto bytes = kernel->getAttrOfType<IntegerAttr>(
              getSharedBytesAttrName());
          bytes && bytes.getInt() > info->getMaxSharedMemoryBytes()) {
        kernel.emitOpError()
            << "needs " << bytes.getInt()
            << " bytes of shared memory once its buffers and pipeline stages "
               "are placed; "
            << info->getName() << " allows " << info->getMaxSharedMemoryBytes()
            << " per block (use smaller tiles or fewer stages)";
        return signalPassFailure();
      }
    }
    RewritePatternSet patterns(&getContext());
    info->populateLowerOpsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError() << "tile-lower-ops did not converge";
      return signalPassFailure();
    }
    // The greedy driver erases kernels that have become dead (an empty
    // body, say): collect the ones that are left again rather than touch
    // erased ops.
    kernels.clear();
    getOperation().walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    // Whatever is left has no lowering on this target.
    bool ok = true;
    for (KernelOp kernel : kernels)
      ok &= succeeded(info->finishLowerOps(rewriter, kernel));
    getOperation().walk([&](Operation *op) {
      if (isa<TileDialect>(op->getDialect()) && !isa<KernelOp, YieldOp>(op)) {
        op->emitOpError() << "cannot be lowered for target '" << target << "'";
        ok = false;
      }
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
