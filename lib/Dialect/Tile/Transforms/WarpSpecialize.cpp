//===- WarpSpecialize.cpp - tile-warp-specialize --------------------------===//
//
// Decides which kernels get a producer warpgroup that only issues their
// pipelines' loads, and records it as the kernel's tile.producer_threads,
// which tile-software-pipeline and tile-lower-kernel read.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"

#define DEBUG_TYPE "tile-warp-specialize"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct TileWarpSpecializePass
    : public tile::impl::TileWarpSpecializeBase<TileWarpSpecializePass> {
  using Base::Base;

  void runOnOperation() override {
    auto specialize = [&](KernelOp kernel, const TargetInfo &info) {
      return info.specializeWarps(kernel);
    };
    if (failed(forEachGpuKernel(getOperation(), target, specialize)))
      signalPassFailure();
  }
};

} // namespace
