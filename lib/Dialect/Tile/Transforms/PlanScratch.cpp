//===- PlanScratch.cpp - tile-plan-scratch --------------------------------===//
//
// Places the op lowerings' shared scratch buffers and tile-plan-shared's
// region after the pipelines' stage buffers, and checks that the kernel's
// shared memory fits the target.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/DiscardableAttrs.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-plan-scratch"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPLANSCRATCH
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The placed buffers, with the pipelines' stage buffers, the scratch
/// buffers and their alignment, must fit: tile-verify-target only
/// estimates them.
LogicalResult checkSharedBytes(KernelOp kernel, const TargetInfo &info) {
  auto bytes = kernel->getAttrOfType<IntegerAttr>(getSharedBytesAttrName());
  if (!bytes || bytes.getInt() <= info.getMaxSharedMemoryBytes())
    return success();
  return kernel.emitOpError()
         << "needs " << bytes.getInt()
         << " bytes of shared memory once its buffers and pipeline stages "
            "are placed; "
         << info.getName() << " allows " << info.getMaxSharedMemoryBytes()
         << " per block (use smaller tiles or fewer stages)";
}

struct TilePlanScratchPass
    : public tile::impl::TilePlanScratchBase<TilePlanScratchPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    auto plan = [&](KernelOp kernel, const TargetInfo &info) {
      if (failed(checkBuffersPlaced(kernel, getArgument())) ||
          failed(info.planScratch(rewriter, kernel)))
        return failure();
      LLVM_DEBUG(llvm::dbgs() << "shared bytes: "
                              << kernel->getAttr(getSharedBytesAttrName())
                              << "\n");
      return checkSharedBytes(kernel, info);
    };
    if (failed(forEachGpuKernel(getOperation(), target, plan)))
      signalPassFailure();
  }
};

} // namespace
