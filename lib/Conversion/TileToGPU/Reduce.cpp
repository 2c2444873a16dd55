//===- Reduce.cpp - tile.reduce on GPUs -----------------------------------===//
//
// A reduce between fragments whose layouts allow it stays in registers:
// each thread folds its own elements of a row, the lanes that share the
// row combine theirs by a butterfly of xor shuffles, and the warps that
// share it through a shared scratch buffer (planRegisterReduce). Other
// reduces read a shared copy of the source (a fragment's scratch copy)
// and fold each target element's row in a loop.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/TileToGPU/GpuLowering.h"
#include "tile/Conversion/TileToGPU/Plans.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

int64_t tilegpu::RegisterReduce::scratchBytes() const {
  if (warpMasks.empty())
    return 0;
  return (int64_t(1) << warpMasks.size()) * targetElements * eltBits / 8;
}

std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
tilegpu::replicaMasks(FragmentLayoutAttr layout, int64_t registers,
                      int64_t warpSize) {
  SmallVector<int64_t> lane, warp;
  int64_t threads = layout.getThreads();
  for (int64_t mask = 1; mask < threads; mask *= 2) {
    bool same = true;
    for (int64_t t = 0; t < threads && same; ++t)
      for (int64_t r = 0; r < registers && same; ++r)
        same = (t ^ mask) < threads &&
               layout.applyInverse(t, r) == layout.applyInverse(t ^ mask, r);
    if (same)
      (mask < warpSize ? lane : warp).push_back(mask);
  }
  return {lane, warp};
}

std::optional<RegisterReduce> tilegpu::planRegisterReduce(ReduceOp op,
                                                          int64_t warpSize) {
  std::optional<Storage> src = getStorage(op.getSource());
  std::optional<Storage> dst = getStorage(op.getTarget());
  Type elt = op.getSource().getType().getElementType();
  if (!src || !dst || src->scope != Scope::Fragment ||
      dst->scope != Scope::Fragment || !elt.isIntOrFloat() ||
      elt.getIntOrFloatBitWidth() > 32)
    return std::nullopt;
  FragmentLayoutAttr from = src->layout, to = dst->layout;
  int64_t threads = from.getThreads(), dim = op.getDim();
  if (to.getThreads() != threads || from.getReplicate() != 1 ||
      numElements(from.getShape()) != src->numRegisters * threads ||
      numElements(to.getShape()) * to.getReplicate() !=
          dst->numRegisters * threads ||
      from.getShape().size() < 2 ||
      threads * src->numRegisters > (int64_t(1) << 18))
    return std::nullopt;
  auto project = [&](SmallVector<int64_t> e) {
    e.erase(e.begin() + dim);
    return e;
  };
  RegisterReduce plan;
  plan.sources.resize(dst->numRegisters);
  for (int64_t t = 0; t < threads; ++t) {
    SmallVector<SmallVector<int64_t>> sources(dst->numRegisters);
    for (int64_t q = 0; q < src->numRegisters; ++q) {
      SmallVector<int64_t> row = project(from.applyInverse(t, q));
      int64_t reg = to.apply(row).second;
      if (reg < 0 || reg >= dst->numRegisters || to.applyInverse(t, reg) != row)
        return std::nullopt;
      sources[reg].push_back(q);
    }
    if (t == 0)
      plan.sources = sources;
    else if (sources != plan.sources)
      return std::nullopt;
  }
  std::tie(plan.laneMasks, plan.warpMasks) =
      replicaMasks(to, dst->numRegisters, warpSize);
  plan.targetElements = numElements(to.getShape());
  plan.eltBits = elt.getIntOrFloatBitWidth();
  // Every source element of a row is held by the threads that share it:
  // together they hold the row's length.
  int64_t group = int64_t(1) << (plan.laneMasks.size() + plan.warpMasks.size());
  int64_t perThread = 0;
  for (const SmallVector<int64_t> &s : plan.sources)
    perThread = std::max<int64_t>(perThread, s.size());
  for (const SmallVector<int64_t> &s : plan.sources)
    if (int64_t(s.size()) != perThread)
      return std::nullopt;
  if (perThread * group != from.getShape()[dim])
    return std::nullopt;
  return plan;
}

namespace {

} // namespace

void tilegpu::combineAcrossWarps(PatternRewriter &rewriter, Location loc,
                                 const ReplicaCombine &how,
                                 SmallVector<Value> &partials) {
  ReduceKind kind = how.kind;
  Type elt = how.elt;
  int64_t slots = int64_t(1) << how.warpMasks.size();
  int64_t rows = numElements(how.layout.getShape());
  Value buffer = how.buffer;
  Value tid = threadId(rewriter, loc);
  Value slot = indexConst(rewriter, loc, 0);
  for (auto [i, mask] : llvm::enumerate(how.warpMasks)) {
    Value bit = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(rewriter, loc, tid,
                              indexConst(rewriter, loc, mask)),
        indexConst(rewriter, loc, 0));
    slot = arith::SelectOp::create(
        rewriter, loc, bit,
        arith::AddIOp::create(rewriter, loc, slot,
                              indexConst(rewriter, loc, int64_t(1) << i)),
        slot);
  }
  int64_t laneBits = 0;
  for (int64_t mask : how.laneMasks)
    laneBits |= mask;
  Value leader = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(rewriter, loc, tid,
                            indexConst(rewriter, loc, laneBits)),
      indexConst(rewriter, loc, 0));
  ArrayRef<int64_t> shape = how.layout.getShape();
  SmallVector<Value> rowOf;
  for (int64_t r = 0; r < int64_t(partials.size()); ++r) {
    SmallVector<Value> idx =
        indicesOfRegister(rewriter, loc, how.layout, tid, r);
    Value linear = indexConst(rewriter, loc, 0);
    for (auto [i, size] : llvm::zip(idx, shape))
      linear = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, linear,
                                indexConst(rewriter, loc, size)),
          i);
    rowOf.push_back(linear);
  }
  auto at = [&](OpBuilder &b, Value s, Value row) {
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, s, indexConst(b, loc, rows)),
        row);
  };
  barrier(rewriter, loc);
  buildIf(rewriter, loc, leader, [&](OpBuilder &b, Location l) {
    for (auto [acc, row] : llvm::zip(partials, rowOf))
      memref::StoreOp::create(b, l, acc, buffer, ValueRange{at(b, slot, row)});
  });
  barrier(rewriter, loc);
  for (auto [acc, row] : llvm::zip(partials, rowOf)) {
    acc = reduceIdentity(rewriter, loc, kind, elt);
    for (int64_t s = 0; s < slots; ++s)
      acc = reduceCombine(
          rewriter, loc, kind, acc,
          memref::LoadOp::create(
              rewriter, loc, buffer,
              ValueRange{at(rewriter, indexConst(rewriter, loc, s), row)}),
          how.nanPropagate);
  }
}

namespace {

struct ReduceLowering : public OpRewritePattern<ReduceOp> {
  ReduceLowering(MLIRContext *ctx, const GpuLowering &lowering)
      : OpRewritePattern(ctx), lowering(lowering) {}

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Storage> src = getStorage(op.getSource());
    std::optional<Storage> dst = getStorage(op.getTarget());
    if (!src || !dst || src->scope == Scope::Local)
      return failure();
    if (std::optional<RegisterReduce> plan =
            planRegisterReduce(op, lowering.getWarpSize()))
      return lowerInRegisters(rewriter, op, *src, *dst, *plan);
    return lowerThroughMemory(rewriter, op, *src, *dst);
  }

private:
  LogicalResult lowerInRegisters(PatternRewriter &rewriter, ReduceOp op,
                                 const Storage &src, const Storage &dst,
                                 const RegisterReduce &plan) const {
    Location loc = op.getLoc();
    ReduceKind kind = op.getKind();
    Type elt = op.getSource().getType().getElementType();
    bool nan = op.getNanPropagate();
    auto reg = [&](int64_t r) { return indexConst(rewriter, loc, r); };
    SmallVector<Value> partials;
    for (const SmallVector<int64_t> &sources : plan.sources) {
      Value acc = reduceIdentity(rewriter, loc, kind, elt);
      for (int64_t q : sources)
        acc = reduceCombine(
            rewriter, loc, kind, acc,
            reduceOperand(rewriter, loc, kind,
                          memref::LoadOp::create(rewriter, loc, src.memref,
                                                 ValueRange{reg(q)})),
            nan);
      for (int64_t mask : plan.laneMasks)
        acc = reduceCombine(rewriter, loc, kind, acc,
                            lowering.shuffleXor(rewriter, loc, acc, mask), nan);
      partials.push_back(acc);
    }
    if (!plan.warpMasks.empty()) {
      auto scratch = op->getAttrOfType<IntegerAttr>(kScratchAttr);
      if (!scratch)
        return rewriter.notifyMatchFailure(op, "reduce without scratch");
      Value buffer = sharedView(
          rewriter, loc,
          {(int64_t(1) << plan.warpMasks.size()) * plan.targetElements}, elt,
          indexConst(rewriter, loc, scratch.getInt()));
      combineAcrossWarps(rewriter, loc,
                         {kind, elt, nan, plan.laneMasks, plan.warpMasks,
                          dst.layout, buffer},
                         partials);
    }
    for (auto [r, acc] : llvm::enumerate(partials)) {
      if (!op.getClear())
        acc = reduceCombine(rewriter, loc, kind,
                            memref::LoadOp::create(rewriter, loc, dst.memref,
                                                   ValueRange{reg(r)}),
                            acc, nan);
      memref::StoreOp::create(rewriter, loc, acc, dst.memref,
                              ValueRange{reg(r)});
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// The source in shared memory (a fragment through its scratch copy):
  /// each target element folds its row in a loop, the elements of a
  /// fragment target in the threads that hold them, those of a shared
  /// target spread over the block, those of a local target in every thread.
  static LogicalResult lowerThroughMemory(PatternRewriter &rewriter,
                                          ReduceOp op, const Storage &src,
                                          const Storage &dst) {
    Location loc = op.getLoc();
    ReduceKind kind = op.getKind();
    Type elt = op.getSource().getType().getElementType();
    bool nan = op.getNanPropagate();
    Value source = src.memref;
    if (src.scope == Scope::Fragment) {
      source = stageToShared(rewriter, loc, op.getSource());
      if (!source)
        return rewriter.notifyMatchFailure(op, "source without scratch");
    }
    MemRefType srcType = op.getSource().getType();
    int64_t dim = op.getDim();
    int64_t length = srcType.getDimSize(dim);

    // The reduction of the source's row at `outIdx` (target indices),
    // starting from `init`.
    auto reduceRow = [&](OpBuilder &b, Location l, ArrayRef<Value> outIdx,
                         Value init) -> Value {
      auto loop = scf::ForOp::create(
          b, l, indexConst(b, l, 0), indexConst(b, l, length),
          indexConst(b, l, 1), ValueRange{init},
          [&](OpBuilder &rb, Location rl, Value r, ValueRange iter) {
            SmallVector<Value> idx;
            if (srcType.getRank() > 1)
              idx.append(outIdx.begin(), outIdx.end());
            idx.insert(idx.begin() + dim, r);
            Value x = reduceOperand(
                rb, rl, kind, memref::LoadOp::create(rb, rl, source, idx));
            scf::YieldOp::create(rb, rl,
                                 reduceCombine(rb, rl, kind, iter[0], x, nan));
          });
      return loop.getResult(0);
    };
    ArrayRef<int64_t> outShape = op.getTarget().getType().getShape();
    if (dst.scope == Scope::Fragment) {
      forEachHeldElement(
          rewriter, loc, dst.layout, dst.numRegisters,
          [&](OpBuilder &b, Location l, int64_t r, ArrayRef<Value> idx) {
            Value reg = indexConst(b, l, r);
            Value init =
                op.getClear()
                    ? reduceIdentity(b, l, kind, elt)
                    : memref::LoadOp::create(b, l, dst.memref, ValueRange{reg})
                          .getResult();
            memref::StoreOp::create(b, l, reduceRow(b, l, idx, init),
                                    dst.memref, ValueRange{reg});
          });
    } else {
      auto body = [&](OpBuilder &b, Location l, ArrayRef<Value> idx) {
        Value init =
            op.getClear()
                ? reduceIdentity(b, l, kind, elt)
                : memref::LoadOp::create(b, l, dst.memref, idx).getResult();
        memref::StoreOp::create(b, l, reduceRow(b, l, idx, init), dst.memref,
                                idx);
      };
      if (dst.scope == Scope::Shared) {
        barrier(rewriter, loc);
        buildThreadStridedLoop(
            rewriter, loc, numElements(outShape), getThreads(op),
            [&](OpBuilder &b, Location l, Value linear) {
              body(b, l, delinearize(b, l, linear, outShape));
            });
      } else {
        buildTileLoops(rewriter, loc, outShape,
                       [&](OpBuilder &b, Location l, ValueRange ivs) {
                         body(b, l, SmallVector<Value>(ivs));
                       });
      }
    }
    barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

  const GpuLowering &lowering;
};

} // namespace

void mlir::tile::populateReduceToGPUPatterns(RewritePatternSet &patterns,
                                             const GpuLowering &lowering) {
  patterns.add<ReduceLowering>(patterns.getContext(), lowering);
}
