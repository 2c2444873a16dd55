//===- View.cpp - tile.view on the CPU ------------------------------------===//
//
// A shared buffer that a tile.view reads is allocated as bytes (64-byte
// aligned, at the start of the block like every buffer); the buffer and its
// views are memref.views of those bytes.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToCPU/View.h"
#include "tile/Conversion/Utils.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Before the plain allocation pattern: the bytes of a viewed buffer.
struct ViewedAllocLowering : public OpRewritePattern<AllocSharedOp> {
  ViewedAllocLowering(MLIRContext *ctx)
      : OpRewritePattern(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(AllocSharedOp op,
                                PatternRewriter &rewriter) const override {
    auto kernel = op->getParentOfType<KernelOp>();
    if (!kernel || !llvm::any_of(op->getUsers(), llvm::IsaPred<ViewOp>))
      return failure();
    MemRefType type = op.getType();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&kernel.getBodyBlock());
    Location loc = op.getLoc();
    Value bytes = memref::AllocaOp::create(
        rewriter, loc,
        MemRefType::get({getBufferBytes(type)}, rewriter.getI8Type(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace()),
        rewriter.getI64IntegerAttr(64));
    rewriter.replaceOpWithNewOp<memref::ViewOp>(
        op, type, bytes, indexConst(rewriter, loc, 0), ValueRange{});
    return success();
  }
};

/// Once its source is placed: a view of the same bytes.
struct ViewLowering : public OpRewritePattern<ViewOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ViewOp op,
                                PatternRewriter &rewriter) const override {
    auto source = op.getSource().getDefiningOp<memref::ViewOp>();
    if (!source)
      return rewriter.notifyMatchFailure(op, "source not placed yet");
    rewriter.replaceOpWithNewOp<memref::ViewOp>(op, op.getType(),
                                                source.getSource(),
                                                source.getByteShift(),
                                                ValueRange{});
    return success();
  }
};

} // namespace

void mlir::tile::populateViewToCPUPatterns(RewritePatternSet &patterns) {
  patterns.add<ViewedAllocLowering, ViewLowering>(patterns.getContext());
}
