//===- SelectMma.cpp - tile-select-mma ------------------------------------===//
//
// Decides once how each gemm runs (instruction, its shape, the warp
// partition) and records it as the gemm's #tile.mma, which
// tile-infer-layouts and tile-lower-ops read. The target decides in two
// steps: from the gemm alone (TargetInfo::selectMma), then, with the
// fragment layouts those choices lead to, from its surroundings
// (TargetInfo::settleMma: on sm_90a, whether a TMA pipeline feeds it).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-select-mma"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESELECTMMA
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Gives every gemm of `kernel` the #tile.mma the target chooses from the
/// gemm alone; false where it reported one.
bool selectFromGemms(KernelOp kernel, const TargetInfo &target) {
  bool ok = true;
  kernel.walk([&](Operation *op) {
    if (!isa<GemmOp, GemmSpOp>(op))
      return;
    FailureOr<MmaAttr> mma = target.selectMma(op);
    if (failed(mma)) {
      ok = false;
      return;
    }
    if (!*mma)
      return;
    if (auto gemm = dyn_cast<GemmOp>(op))
      gemm.setMmaAttr(*mma);
    else
      cast<GemmSpOp>(op).setMmaAttr(*mma);
  });
  return ok;
}

struct TileSelectMmaPass
    : public tile::impl::TileSelectMmaBase<TileSelectMmaPass> {
  using Base::Base;

  void runOnOperation() override {
    auto select = [&](KernelOp kernel, const TargetInfo &info) {
      if (!selectFromGemms(kernel, info))
        return failure();
      // The layouts tile-infer-layouts will choose from these partitions;
      // where it cannot (conflicting anchors) it reports that itself, and
      // the gemms are judged without layouts here.
      DenseMap<Value, FragmentLayoutAttr> layouts;
      {
        ScopedDiagnosticHandler silence(&getContext(),
                                        [](Diagnostic &) { return success(); });
        FailureOr<DenseMap<Value, FragmentLayoutAttr>> inferred =
            inferFragmentLayouts(kernel, info);
        if (succeeded(inferred))
          layouts = std::move(*inferred);
      }
      LogicalResult settled =
          info.settleMma(kernel, [&](Value v) { return layouts.lookup(v); });
      LLVM_DEBUG(kernel.walk([&](Operation *op) {
        if (isa<GemmOp, GemmSpOp>(op))
          llvm::dbgs() << "chose " << op->getAttr("mma") << " for " << *op
                       << "\n";
      }));
      return settled;
    };
    if (failed(forEachGpuKernel(getOperation(), target, select)))
      signalPassFailure();
  }
};

} // namespace
