//===- Scan.cpp - tile.scan on the CPU ------------------------------------===//
//
// A block runs on one host thread, so a scan is a loop nest over the lines
// of the region with a running value along each, whatever the buffers'
// scopes (they are all memory of that thread here).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToCPU/Scan.h"
#include "tile/Conversion/Utils.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct ScanLowering : public OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    buildSerialScan(
        rewriter, loc, op.getKind(), op.getSourceSizes(), op.getDim(),
        op.getReverse(), op.getSource(),
        materializeOffsets(rewriter, loc, op.getMixedSourceOffsets()),
        op.getTarget(),
        materializeOffsets(rewriter, loc, op.getMixedTargetOffsets()));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateScanToCPUPatterns(RewritePatternSet &patterns) {
  patterns.add<ScanLowering>(patterns.getContext());
}
