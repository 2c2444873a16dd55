//===- Gemm.cpp - tile.gemm on NVIDIA GPUs --------------------------------===//
//
// tile.gemm as tile-select-mma's #tile.mma asks: wgmma on the panel buffers
// of a TMA pipeline (Wgmma.cpp), or mma.sync on its warp partition
// (MmaSync.cpp), operands in fragments read through their shared scratch
// copies (but for an A in registers).
//
//===----------------------------------------------------------------------===//

#include "MmaSync.h"

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// tile.gemm as its #tile.mma (tile-select-mma) asks: wgmma on the panel
/// buffers of a TMA pipeline, or mma.sync on its warp partition.
struct GemmLowering : public OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<Storage> a = getStorage(op.getA());
    std::optional<Storage> b = getStorage(op.getB());
    std::optional<Storage> c = getStorage(op.getC());
    if (!a || !b || !c)
      return failure();
    Type aElt = op.getA().getType().getElementType();
    Type bElt = op.getB().getType().getElementType();
    Type cElt = op.getC().getType().getElementType();
    // Everything is checked before any IR is created: a failed match
    // leaves the op untouched.
    auto hasScratch = [](Value fragment) {
      auto bound = fragment.getDefiningOp<BindStorageOp>();
      return bound && bound.getScratchOffset();
    };
    MmaAttr mma = op.getMmaAttr();
    if (!mma)
      return reportNoMma(op);
    WarpPartition part = getMmaPartition(mma);
    bool aInRegisters = mmaAFromRegisters(op, *a, part);
    if (a->scope == Scope::Local || b->scope == Scope::Local ||
        (a->scope == Scope::Fragment && !aInRegisters &&
         !hasScratch(op.getA())) ||
        (b->scope == Scope::Fragment && !hasScratch(op.getB())))
      return rewriter.notifyMatchFailure(op, "operand storage");
    bool int8 = aElt.isInteger(8) && cElt.isInteger(32);
    if (!(aElt.isF16() || aElt.isBF16() || aElt.isF32() ||
          isa<Float8E4M3FNType, Float8E5M2Type>(aElt) || int8) ||
        aElt != bElt || !(cElt.isF32() || int8))
      return rewriter.notifyMatchFailure(op, "element types");
    int64_t m = op.getM(), n = op.getN(), k = op.getK();
    int64_t threads = getThreads(op);
    // wgmma reads the operands that the TMA pipeline stored as swizzled
    // panels (A possibly from registers).
    if (mma.getKind() == MmaKind::Wgmma) {
      // A 2-d shared tile of one 128-byte row a panel, 128-byte swizzled
      // (written from registers in a TMA pipeline) is one panel of its rows.
      for (auto [storage, operand] :
           {std::pair(&*a, op.getA()), std::pair(&*b, op.getB())}) {
        MemRefType type = operand.getType();
        if (storage->scope == Scope::Shared && !storage->panelRows &&
            storage->swizzleChunks * 16 == 128 &&
            type.getDimSize(1) * type.getElementTypeBitWidth() == 128 * 8) {
          storage->panelRows = type.getDimSize(0);
          storage->panelBytes = 128;
        }
      }
      if (!b->panelRows || !(a->panelRows || aInRegisters))
        return op.emitOpError()
               << "has " << mma
               << ", but its operands are not the panel buffers of a TMA "
                  "pipeline (B, and A unless it comes from registers in the "
                  "accumulator layout of an M x K wgmma)";
      emitWgmmaGemm(rewriter, op, *a, *b, *c);
      rewriter.eraseOp(op);
      return success();
    }
    if (k % mma.getK() != 0)
      return rewriter.notifyMatchFailure(op, "shape");
    if (c->layout !=
        getMmaSyncAccumulatorLayout(getContext(), m, n, threads, part))
      return rewriter.notifyMatchFailure(op, "accumulator layout");

    // Operands in fragments are read through their shared scratch copy,
    // but for an A in registers.
    if (a->scope == Scope::Fragment && !aInRegisters)
      a = Storage{stageToShared(rewriter, loc, op.getA()), Scope::Shared,
                  nullptr, 0, 0};
    if (b->scope == Scope::Fragment)
      b = Storage{stageToShared(rewriter, loc, op.getB()), Scope::Shared,
                  nullptr, 0, 0};

    emitMmaGemm(rewriter, loc,
                MmaGemm{*a, *b, *c, m, n, k, op.getTransposeA(),
                        op.getTransposeB(), op.getClearAccum(), part, aElt,
                        cElt, op.getA().getType().getShape()[1],
                        op.getB().getType().getShape()[1], aInRegisters});
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void nvvm::populateGemmToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<GemmLowering>(patterns.getContext());
}
