//===- GemmSp.cpp - tile.gemm_sp on NVIDIA GPUs ---------------------------===//
//
// A 2:4 structured-sparse gemm: the block expands the compressed A into a
// dense shared scratch buffer, then runs mma.sync on it (MmaSync.cpp).
//
//===----------------------------------------------------------------------===//

#include "MmaSync.h"

#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// tile.gemm_sp: the block expands the 2:4 compressed A (values M x K/2,
/// metadata M x K/w: 2 bits per kept value, its position in its group of 4)
/// into a dense M x K shared scratch buffer, then runs the dense gemm on
/// it. (The sparse tensor-core instruction mma.sp is not used yet.)
struct GemmSpLowering : public OpRewritePattern<GemmSpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmSpOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::optional<Storage> a = getStorage(op.getA());
    std::optional<Storage> e = getStorage(op.getE());
    std::optional<Storage> b = getStorage(op.getB());
    std::optional<Storage> c = getStorage(op.getC());
    auto scratch = op->getAttrOfType<IntegerAttr>(kScratchAttr);
    if (!a || !e || !b || !c || !scratch || a->scope != Scope::Shared ||
        e->scope != Scope::Shared || b->scope != Scope::Shared)
      return rewriter.notifyMatchFailure(op, "operand storage");
    MemRefType aType = op.getA().getType();
    Type aElt = aType.getElementType();
    Type cElt = op.getC().getType().getElementType();
    if (!(aElt.isF16() || aElt.isBF16()) ||
        aElt != op.getB().getType().getElementType() || !cElt.isF32())
      return rewriter.notifyMatchFailure(op, "element types");
    int64_t m = aType.getDimSize(0), half = aType.getDimSize(1), k = 2 * half;
    int64_t n = op.getC().getType().getDimSize(1);
    int64_t threads = getThreads(op);
    MmaAttr mma = op.getMmaAttr();
    if (!mma)
      return reportNoMma(op);
    WarpPartition part = getMmaPartition(mma);
    if (k % 16 != 0 || c->layout != getMmaSyncAccumulatorLayout(
                                        getContext(), m, n, threads, part))
      return rewriter.notifyMatchFailure(op, "shape or accumulator layout");

    Value dense = sharedView(rewriter, loc, {m, k}, aElt,
                             indexConst(rewriter, loc, scratch.getInt()));
    // The dense tile is XOR-swizzled for ldmatrix (see swizzledColumn).
    int64_t rowChunks = k * aElt.getIntOrFloatBitWidth() / 128;
    Storage denseStorage{dense, Scope::Shared, nullptr, 0,
                         rowChunks >= 2 ? rowChunks : 0};
    // Each thread expands whole groups of 4 (2 kept values and their
    // positions): one 8-byte store of the group, zeros where nothing was
    // kept.
    barrier(rewriter, loc);
    Type metaType = op.getE().getType().getElementType();
    int64_t perWord = metaType.getIntOrFloatBitWidth() / 2;
    Value zero = zeroOf(rewriter, loc, aElt);
    buildThreadStridedLoop(
        rewriter, loc, m * (k / 4), threads,
        [&](OpBuilder &bb, Location l, Value linear) {
          SmallVector<Value> rg = delinearize(bb, l, linear, {m, k / 4});
          Value row = rg[0], group = rg[1];
          auto positionOf = [&](Value j) -> Value {
            Value word =
                arith::DivUIOp::create(bb, l, j, indexConst(bb, l, perWord));
            Value slot =
                arith::RemUIOp::create(bb, l, j, indexConst(bb, l, perWord));
            Value meta =
                memref::LoadOp::create(bb, l, e->memref, ValueRange{row, word});
            Value shift = arith::IndexCastOp::create(
                bb, l, metaType,
                arith::MulIOp::create(bb, l, slot, indexConst(bb, l, 2)));
            Value three = arith::ConstantOp::create(
                bb, l, metaType, bb.getIntegerAttr(metaType, 3));
            return arith::IndexCastUIOp::create(
                bb, l, bb.getIndexType(),
                arith::AndIOp::create(
                    bb, l, arith::ShRUIOp::create(bb, l, meta, shift), three));
          };
          Value j0 = arith::MulIOp::create(bb, l, group, indexConst(bb, l, 2));
          Value j1 = arith::AddIOp::create(bb, l, j0, indexConst(bb, l, 1));
          Value p0 = positionOf(j0), p1 = positionOf(j1);
          Value v0 =
              memref::LoadOp::create(bb, l, a->memref, ValueRange{row, j0});
          Value v1 =
              memref::LoadOp::create(bb, l, a->memref, ValueRange{row, j1});
          SmallVector<Value> elements;
          for (int64_t i = 0; i < 4; ++i) {
            Value at = indexConst(bb, l, i);
            auto is = [&](Value p) {
              return arith::CmpIOp::create(bb, l, arith::CmpIPredicate::eq, p,
                                           at);
            };
            elements.push_back(arith::SelectOp::create(
                bb, l, is(p0), v0,
                arith::SelectOp::create(bb, l, is(p1), v1, zero)));
          }
          Value col = arith::MulIOp::create(bb, l, group, indexConst(bb, l, 4));
          vector::StoreOp::create(
              bb, l,
              vector::FromElementsOp::create(bb, l, VectorType::get({4}, aElt),
                                             elements),
              dense, physicalIndices(bb, l, &denseStorage, {row, col}),
              /*nontemporal=*/false,
              llvm::Align(4 * aElt.getIntOrFloatBitWidth() / 8));
        });
    barrier(rewriter, loc);
    emitMmaGemm(rewriter, loc,
                MmaGemm{denseStorage, *b, *c, m, n, k, /*transposeA=*/false,
                        op.getTransposeB(), op.getClearAccum(), part, aElt,
                        cElt, k, op.getB().getType().getShape()[1]});
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void nvvm::populateGemmSpToNVVMPatterns(RewritePatternSet &patterns) {
  patterns.add<GemmSpLowering>(patterns.getContext());
}
