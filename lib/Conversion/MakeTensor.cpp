//===- MakeTensor.cpp - tile.make_tensor on every target ------------------===//
//
// A tensor made from an address has no memref to start from, so its
// descriptor is built from its fields. The LLVM type converter gives the
// descriptor's struct type (64-bit sizes and strides, the pipelines' index
// width); an unrealized cast hands it to the memref's users until they are
// converted to LLVM too.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Utils.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct MakeTensorLowering : public OpRewritePattern<MakeTensorOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MakeTensorOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    MemRefType type = op.getType();
    LowerToLLVMOptions options(ctx);
    options.overrideIndexBitwidth(64);
    LLVMTypeConverter converter(ctx, options);
    Type descType = converter.convertType(type);
    if (!descType)
      return rewriter.notifyMatchFailure(op, "no LLVM descriptor type");
    Type i64 = rewriter.getI64Type();
    Value ptr = LLVM::IntToPtrOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(ctx), op.getAddress());
    auto desc = MemRefDescriptor::poison(rewriter, loc, descType);
    desc.setAllocatedPtr(rewriter, loc, ptr);
    desc.setAlignedPtr(rewriter, loc, ptr);
    desc.setConstantOffset(rewriter, loc, 0);
    SmallVector<Value> sizes;
    auto dynamic = op.getSizes().begin();
    for (int64_t size : type.getShape())
      sizes.push_back(
          ShapedType::isDynamic(size)
              ? arith::IndexCastOp::create(rewriter, loc, i64, *dynamic++)
                    .getResult()
              : arith::ConstantIntOp::create(rewriter, loc, i64, size)
                    .getResult());
    Value stride = arith::ConstantIntOp::create(rewriter, loc, i64, 1);
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      desc.setSize(rewriter, loc, d, sizes[d]);
      desc.setStride(rewriter, loc, d, stride);
      if (d > 0)
        stride = arith::MulIOp::create(rewriter, loc, stride, sizes[d]);
    }
    rewriter.replaceOpWithNewOp<UnrealizedConversionCastOp>(
        op, TypeRange{type}, ValueRange{desc});
    return success();
  }
};

} // namespace

void mlir::tile::populateMakeTensorPatterns(RewritePatternSet &patterns) {
  patterns.add<MakeTensorLowering>(patterns.getContext());
}
