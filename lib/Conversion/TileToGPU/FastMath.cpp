//===- FastMath.cpp - Approximate exp in GPU kernels ----------------------===//
//
// Fast math in kernels, where the target has an approximate exp2
// (GpuLowering::hasFastExp2; NVIDIA: one `ex2.approx.ftz.f32`, where
// libdevice's exp2f adds a denormal range check around it): f32 exp2 as
// that instruction, and exp as exp2 of x * log2(e). Subnormal results may
// flush to zero.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <type_traits>

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;

namespace {

template <typename MathOpT>
struct FastExpLowering : public OpRewritePattern<MathOpT> {
  FastExpLowering(MLIRContext *ctx, const GpuLowering &lowering)
      : OpRewritePattern<MathOpT>(ctx), lowering(lowering) {}

  LogicalResult matchAndRewrite(MathOpT op,
                                PatternRewriter &rewriter) const override {
    Type f32 = rewriter.getF32Type();
    if (op.getType() != f32 || !op->template getParentOfType<KernelOp>())
      return failure();
    Location loc = op.getLoc();
    Value x = op.getOperand();
    if (std::is_same_v<MathOpT, math::ExpOp>)
      x = arith::MulFOp::create(
          rewriter, loc, x,
          arith::ConstantOp::create(
              rewriter, loc, rewriter.getF32FloatAttr(1.4426950408889634f)));
    rewriter.replaceOp(op, lowering.emitFastExp2(rewriter, loc, x));
    return success();
  }

private:
  const GpuLowering &lowering;
};

} // namespace

void mlir::tile::populateFastMathToGPUPatterns(RewritePatternSet &patterns,
                                               const GpuLowering &lowering) {
  if (!lowering.hasFastExp2())
    return;
  patterns.add<FastExpLowering<math::Exp2Op>, FastExpLowering<math::ExpOp>>(
      patterns.getContext(), lowering);
}
