//===- Atomic.cpp - tile.atomic_* on GPUs ---------------------------------===//
//
// A scalar atomic into a region is spread over the threads; a fragment's
// elements are updated by the threads that own them; a shared tile's
// cooperatively. Updates of global memory are guarded by its bounds.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

namespace {

template <typename AtomicOpT>
struct AtomicLowering : public OpRewritePattern<AtomicOpT> {
  using OpRewritePattern<AtomicOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(AtomicOpT op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TypedValue<MemRefType> target = op.getTarget();
    std::optional<Storage> targetStorage = getStorage(target);
    if (!isGlobal(target.getType()) && !targetStorage)
      return failure();
    Value buffer = targetStorage ? targetStorage->memref : target;
    Type elt = target.getType().getElementType();
    arith::AtomicRMWKind kind = getAtomicRMWKind(op, elt);
    // Checked before anything is created: a pattern that fails must leave
    // the IR as it found it.
    auto tileType = dyn_cast<MemRefType>(op.getValue().getType());
    std::optional<Storage> value =
        tileType ? getStorage(op.getValue()) : std::nullopt;
    if (tileType && (!value || value->scope == Scope::Local))
      return rewriter.notifyMatchFailure(op, "value tile");
    SmallVector<Value> offsets =
        getValueOrCreateConstantIndexOp(rewriter, loc, op.getMixedOffsets());
    SmallVector<int64_t> allDims =
        llvm::to_vector(llvm::seq<int64_t>(0, target.getType().getRank()));
    auto update = [&](OpBuilder &b, Location l, Value value,
                      ArrayRef<Value> idx) {
      Value cond = isGlobal(target.getType())
                       ? inBoundsCond(b, l, buffer, idx, allDims)
                       : Value();
      buildIf(b, l, cond, [&](OpBuilder &tb, Location tl) {
        memref::AtomicRMWOp::create(tb, tl, kind, value, buffer, idx);
      });
    };
    if (std::optional<ArrayRef<int64_t>> sizes = op.getSizes()) {
      // A scalar into every element of the region, spread over the threads.
      buildThreadStridedLoop(
          rewriter, loc, numElements(*sizes), getThreads(op),
          [&](OpBuilder &b, Location l, Value linear) {
            SmallVector<Value> tileIdx = delinearize(b, l, linear, *sizes);
            update(b, l, op.getValue(), addOffsets(b, l, offsets, tileIdx));
          });
      rewriter.eraseOp(op);
      return success();
    }
    if (!tileType) {
      update(rewriter, loc, op.getValue(), offsets);
      rewriter.eraseOp(op);
      return success();
    }
    if (value->scope == Scope::Fragment) {
      forEachHeldElement(
          rewriter, loc, value->layout, value->numRegisters,
          [&](OpBuilder &b, Location l, int64_t r, ArrayRef<Value> tileIdx) {
            Value v = memref::LoadOp::create(b, l, value->memref,
                                             ValueRange{indexConst(b, l, r)});
            update(b, l, v, addOffsets(b, l, offsets, tileIdx));
          },
          /*ownedOnly=*/true);
    } else {
      barrier(rewriter, loc);
      buildThreadStridedLoop(
          rewriter, loc, tileType.getNumElements(), getThreads(op),
          [&](OpBuilder &b, Location l, Value linear) {
            SmallVector<Value> tileIdx =
                delinearize(b, l, linear, tileType.getShape());
            Value v = memref::LoadOp::create(b, l, value->memref, tileIdx);
            update(b, l, v, addOffsets(b, l, offsets, tileIdx));
          });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateAtomicToGPUPatterns(RewritePatternSet &patterns) {
  patterns.add<AtomicLowering<AtomicAddOp>, AtomicLowering<AtomicMaxOp>,
               AtomicLowering<AtomicMinOp>>(patterns.getContext());
}
