//===- InferLayouts.cpp - tile-infer-layouts ------------------------------===//
//
// Chooses the register layout of every fragment buffer: anchored at gemm
// accumulators, pinned by tile.annotate_layout, cyclic otherwise.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-infer-layouts"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINFERLAYOUTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The layout of one fragment, or failure (reported).
FailureOr<FragmentLayoutAttr>
inferLayout(AllocFragmentOp alloc, const TargetInfo &target, int64_t threads) {
  FragmentLayoutAttr chosen;
  Operation *anchor = nullptr;
  // The users in program order (use lists are not), so that a conflict
  // names the earlier requirement first.
  SmallVector<Operation *> users;
  alloc->getParentOfType<KernelOp>().walk([&](Operation *op) {
    if (llvm::is_contained(op->getOperands(), alloc.getResult()))
      users.push_back(op);
  });
  for (Operation *user : users) {
    FragmentLayoutAttr candidate;
    if (auto pin = dyn_cast<AnnotateLayoutOp>(user)) {
      candidate = dyn_cast<FragmentLayoutAttr>(pin.getLayout());
    } else if ((isa<GemmOp>(user) &&
                cast<GemmOp>(user).getC() == alloc.getResult()) ||
               (isa<GemmSpOp>(user) &&
                cast<GemmSpOp>(user).getC() == alloc.getResult())) {
      std::string why;
      candidate = target.getAccumulatorLayout(user, why);
      if (!candidate) {
        if (why.empty())
          continue;
        return user->emitOpError() << why;
      }
    }
    if (!candidate)
      continue;
    if (candidate.getThreads() != threads)
      return user->emitOpError()
             << "needs a layout over " << candidate.getThreads()
             << " threads, but the kernel has " << threads;
    if (chosen && chosen != candidate) {
      InFlightDiagnostic diag = alloc.emitOpError()
                                << "has conflicting layouts: " << chosen
                                << " and " << candidate;
      diag.attachNote(anchor->getLoc()) << "first required here";
      diag.attachNote(user->getLoc()) << "then required here";
      return diag;
    }
    chosen = candidate;
    anchor = user;
  }
  if (!chosen)
    chosen = getCyclicLayout(alloc.getContext(), alloc.getType().getShape(),
                             threads);
  LLVM_DEBUG(llvm::dbgs() << "layout of " << alloc << ": " << chosen << "\n");
  return chosen;
}

struct TileInferLayoutsPass
    : public tile::impl::TileInferLayoutsBase<TileInferLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::unique_ptr<TargetInfo> info =
        TargetInfo::getOrEmitError(target, getOperation());
    if (!info)
      return signalPassFailure();
    if (!info->isGPU())
      return;
    bool ok = true;
    getOperation().walk([&](AllocFragmentOp alloc) {
      auto kernel = alloc->getParentOfType<KernelOp>();
      FailureOr<FragmentLayoutAttr> layout =
          inferLayout(alloc, *info, kernel.getThreads());
      if (failed(layout)) {
        ok = false;
        return;
      }
      alloc->setAttr(getLayoutAttrName(), *layout);
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
