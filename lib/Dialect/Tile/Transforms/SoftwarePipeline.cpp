//===- SoftwarePipeline.cpp - tile-software-pipeline ----------------------===//
//
// Gives the tile.pipelined loops of GPU kernels the stage buffers and
// asynchronous copies of the target (a TMA ring or cp.async stages on
// NVIDIA GPUs).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tile-software-pipeline"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESOFTWAREPIPELINE
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

struct TileSoftwarePipelinePass
    : public tile::impl::TileSoftwarePipelineBase<TileSoftwarePipelinePass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    auto pipeline = [&](KernelOp kernel, const TargetInfo &info) {
      if (failed(checkBuffersPlaced(kernel, getArgument())))
        return failure();
      return info.pipelineLoops(rewriter, kernel);
    };
    if (failed(forEachGpuKernel(getOperation(), target, pipeline)))
      signalPassFailure();
  }
};

} // namespace
