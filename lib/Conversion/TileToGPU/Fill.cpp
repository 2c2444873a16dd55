//===- Fill.cpp - tile.fill and tile.clear on GPUs ------------------------===//
//
// A fragment fill stores the value into each of the thread's registers; a
// local fill loops over the thread's array; a shared fill is cooperative
// (thread t stores elements t, t + T, ...), bracketed by barriers.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

namespace {

LogicalResult lowerFill(PatternRewriter &rewriter, Operation *op, Value buffer,
                        Value value) {
  Location loc = op->getLoc();
  std::optional<Storage> storage = getStorage(buffer);
  if (!storage)
    return failure();
  auto type = cast<MemRefType>(buffer.getType());
  switch (storage->scope) {
  case Scope::Fragment:
    for (int64_t r = 0; r < storage->numRegisters; ++r)
      memref::StoreOp::create(rewriter, loc, value, storage->memref,
                              ValueRange{indexConst(rewriter, loc, r)});
    break;
  case Scope::Local:
    buildTileLoops(rewriter, loc, type.getShape(),
                   [&](OpBuilder &b, Location l, ValueRange ivs) {
                     memref::StoreOp::create(b, l, value, storage->memref, ivs);
                   });
    break;
  case Scope::Shared:
    barrier(rewriter, loc);
    buildThreadStridedLoop(rewriter, loc, type.getNumElements(), getThreads(op),
                           [&](OpBuilder &b, Location l, Value linear) {
                             memref::StoreOp::create(
                                 b, l, value, storage->memref,
                                 delinearize(b, l, linear, type.getShape()));
                           });
    barrier(rewriter, loc);
    break;
  }
  rewriter.eraseOp(op);
  return success();
}

struct FillLowering : public OpRewritePattern<FillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FillOp op,
                                PatternRewriter &rewriter) const override {
    return lowerFill(rewriter, op, op.getBuffer(), op.getValue());
  }
};

struct ClearLowering : public OpRewritePattern<ClearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClearOp op,
                                PatternRewriter &rewriter) const override {
    Type elt = op.getBuffer().getType().getElementType();
    return lowerFill(rewriter, op, op.getBuffer(),
                     zeroOf(rewriter, op.getLoc(), elt));
  }
};
} // namespace

void mlir::tile::populateFillToGPUPatterns(RewritePatternSet &patterns) {
  patterns.add<FillLowering, ClearLowering>(patterns.getContext());
}
