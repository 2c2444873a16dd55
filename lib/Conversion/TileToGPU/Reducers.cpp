//===- Reducers.cpp - Reduction buffers on GPUs ---------------------------===//
//
// A reducer (TileLang's T.alloc_reducer) is a local buffer: every thread
// holds a copy and combines into it the contributions of the loop
// iterations it runs. tile.finalize_reducer combines the copies element by
// element: a butterfly of warp shuffles, then, with more than one warp, the
// warps' results through shared memory (the op's scratch, which
// prepareReducersForGPU reserves). Afterwards the copies agree, and a
// tile.copy out of the reducer reads the copy of whichever thread moves
// the element. A reducer that tile-infer-layouts made a fragment (updated
// at the rows of parallel loops) holds a partial in each of an element's
// replicas; the finalize combines them as a row reduction does.
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

namespace {

/// Runs body(linear index) for the `n` elements of a buffer, in every
/// thread.
void forEachElement(OpBuilder &b, Location loc, int64_t n,
                    function_ref<void(OpBuilder &, Location, Value)> body) {
  scf::ForOp::create(b, loc, indexConst(b, loc, 0), indexConst(b, loc, n),
                     indexConst(b, loc, 1), ValueRange{},
                     [&](OpBuilder &lb, Location ll, Value iv, ValueRange) {
                       body(lb, ll, iv);
                       scf::YieldOp::create(lb, ll);
                     });
}

/// A loop that updates a reducer must run each of its iterations on one
/// thread, or a contribution would be counted once per thread that runs
/// it: the loop's iterations follow a fragment it accesses at the loop
/// indices, and a replicated layout gives each of them to several threads.
LogicalResult checkReducerUpdates(KernelOp kernel) {
  WalkResult result = kernel.walk([&](ParallelOp loop) {
    bool updates = false;
    loop.walk([&](memref::StoreOp store) {
      updates |= isReducer(store.getMemRef());
    });
    if (!updates)
      return WalkResult::advance();
    ValueRange ivs = loop.getBodyBlock().getArguments();
    WalkResult inner = loop.walk([&](memref::LoadOp load) {
      std::optional<Storage> s = getStorage(load.getMemRef());
      if (!s || s->scope != Scope::Fragment || s->layout.getReplicate() == 1 ||
          s->layout.getShape() != loop.getExtents() ||
          !llvm::equal(load.getIndices(), ivs))
        return WalkResult::advance();
      loop.emitOpError()
          << "updates a reducer in iterations that run on "
          << s->layout.getReplicate()
          << " threads each (they follow a fragment with a replicated "
             "layout, read at the loop indices), so each contribution would "
             "be counted that many times; update the reducer in a loop over "
             "a fragment that is not replicated";
      return WalkResult::interrupt();
    });
    return inner;
  });
  return failure(result.wasInterrupted());
}

struct FinalizeReducerLowering : public OpRewritePattern<FinalizeReducerOp> {
  FinalizeReducerLowering(MLIRContext *ctx, const GpuLowering &lowering)
      : OpRewritePattern(ctx), lowering(lowering) {}

  LogicalResult matchAndRewrite(FinalizeReducerOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Storage> s = getStorage(op.getReducer());
    int64_t warpSize = lowering.getWarpSize();
    int64_t warps = getThreads(op) / warpSize;
    auto scratchAttr = op->getAttrOfType<IntegerAttr>(kScratchAttr);
    if (s && s->scope == Scope::Fragment) {
      // The loops that update it first: they tell its stores from those of
      // other fragments by this op.
      if (llvm::any_of(op.getReducer().getUsers(), [](Operation *user) {
            return user->getParentOfType<ParallelOp>();
          }))
        return rewriter.notifyMatchFailure(op, "updating loops not lowered");
      return lowerFragment(rewriter, op, *s, scratchAttr);
    }
    if (!s || s->scope != Scope::Local || (warps > 1 && !scratchAttr))
      return rewriter.notifyMatchFailure(op, "reducer not placed");
    Location loc = op.getLoc();
    MemRefType type = op.getReducer().getType();
    ArrayRef<int64_t> shape = type.getShape();
    Type elt = type.getElementType();
    int64_t n = type.getNumElements();
    ReduceKind kind = op.getKind();
    Value copy = s->memref;

    Value tid = threadId(rewriter, loc);
    Value lanes = indexConst(rewriter, loc, warpSize);
    Value lane = arith::RemUIOp::create(rewriter, loc, tid, lanes);
    Value warp = arith::DivUIOp::create(rewriter, loc, tid, lanes);
    Value scratch =
        warps > 1 ? sharedView(rewriter, loc, {warps, n}, elt,
                               indexConst(rewriter, loc, scratchAttr.getInt()))
                  : Value();
    // Each warp's combination of its lanes' copies: in every lane's copy
    // (one warp), or in the warp's row of the scratch.
    forEachElement(rewriter, loc, n, [&](OpBuilder &b, Location l, Value e) {
      SmallVector<Value> idx = delinearize(b, l, e, shape);
      Value v = memref::LoadOp::create(b, l, copy, idx);
      for (int64_t mask = warpSize / 2; mask >= 1; mask /= 2)
        v = reduceCombine(b, l, kind, v, lowering.shuffleXor(b, l, v, mask));
      if (!scratch) {
        memref::StoreOp::create(b, l, v, copy, idx);
        return;
      }
      Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, lane,
                                          indexConst(b, l, 0));
      buildIf(b, l, first, [&](OpBuilder &tb, Location tl) {
        memref::StoreOp::create(tb, tl, v, scratch, ValueRange{warp, e});
      });
    });
    if (scratch) {
      barrier(rewriter, loc);
      forEachElement(rewriter, loc, n, [&](OpBuilder &b, Location l, Value e) {
        Value acc = memref::LoadOp::create(
            b, l, scratch, ValueRange{indexConst(b, l, 0), e});
        for (int64_t w = 1; w < warps; ++w)
          acc = reduceCombine(
              b, l, kind, acc,
              memref::LoadOp::create(b, l, scratch,
                                     ValueRange{indexConst(b, l, w), e}));
        memref::StoreOp::create(b, l, acc, copy, delinearize(b, l, e, shape));
      });
      // A later finalize of the same op (in a loop) rewrites the scratch.
      barrier(rewriter, loc);
    }
    if (Value seed = op.getSeed())
      forEachElement(rewriter, loc, n, [&](OpBuilder &b, Location l, Value e) {
        SmallVector<Value> idx = delinearize(b, l, e, shape);
        Value v = memref::LoadOp::create(b, l, copy, idx);
        memref::StoreOp::create(b, l, reduceCombine(b, l, kind, v, seed), copy,
                                idx);
      });
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// A fragment reducer: each register's replicas (replicaMasks) combined
  /// by the butterfly, then across warps through the scratch.
  LogicalResult lowerFragment(PatternRewriter &rewriter, FinalizeReducerOp op,
                              const Storage &s, IntegerAttr scratchAttr) const {
    auto [laneMasks, warpMasks] =
        replicaMasks(s.layout, s.numRegisters, lowering.getWarpSize());
    if (int64_t(1) << (laneMasks.size() + warpMasks.size()) !=
        s.layout.getReplicate())
      return op.emitOpError()
             << "combines a fragment whose copies of an element are not "
                "at one register of threads that differ in whole bits";
    if (!warpMasks.empty() && !scratchAttr)
      return rewriter.notifyMatchFailure(op, "reducer without scratch");
    Location loc = op.getLoc();
    ReduceKind kind = op.getKind();
    Type elt = op.getReducer().getType().getElementType();
    auto reg = [&](int64_t r) { return indexConst(rewriter, loc, r); };
    SmallVector<Value> partials;
    for (int64_t r = 0; r < s.numRegisters; ++r) {
      Value v = memref::LoadOp::create(rewriter, loc, s.memref,
                                       ValueRange{reg(r)});
      for (int64_t mask : laneMasks)
        v = reduceCombine(rewriter, loc, kind, v,
                          lowering.shuffleXor(rewriter, loc, v, mask));
      partials.push_back(v);
    }
    if (!warpMasks.empty()) {
      int64_t slots = int64_t(1) << warpMasks.size();
      Value buffer = sharedView(
          rewriter, loc, {slots * numElements(s.layout.getShape())}, elt,
          indexConst(rewriter, loc, scratchAttr.getInt()));
      combineAcrossWarps(
          rewriter, loc,
          {kind, elt, /*nanPropagate=*/false, laneMasks, warpMasks, s.layout,
           buffer},
          partials);
      // A later finalize of the same op (in a loop) rewrites the scratch.
      barrier(rewriter, loc);
    }
    for (auto [r, v] : llvm::enumerate(partials)) {
      if (Value seed = op.getSeed())
        v = reduceCombine(rewriter, loc, kind, v, seed);
      memref::StoreOp::create(rewriter, loc, v, s.memref, ValueRange{reg(r)});
    }
    rewriter.eraseOp(op);
    return success();
  }

  const GpuLowering &lowering;
};

/// A copy out of a finalized reducer: every thread's copy holds the result,
/// so each element is read from the copy of the thread that moves it (the
/// threads share the elements of a global or shared target, each fills the
/// registers it holds of a fragment and its own copy of a local target).
struct ReducerCopyLowering : public OpRewritePattern<CopyOp> {
  ReducerCopyLowering(MLIRContext *ctx)
      : OpRewritePattern(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Storage> src = getStorage(op.getSource());
    if (!src || src->scope != Scope::Local || !isReducer(op.getSource()))
      return failure();
    std::optional<Storage> dst = getStorage(op.getTarget());
    bool dstGlobal = isGlobal(op.getTarget().getType());
    if (!dstGlobal && !dst)
      return failure();
    if (dst && dst->scope == Scope::Shared && dst->swizzleChunks)
      return rewriter.notifyMatchFailure(op, "swizzled shared target");
    if (dst && dst->scope == Scope::Fragment &&
        op.getTarget().getType().getShape() !=
            ArrayRef<int64_t>(op.getTargetSizes()))
      return rewriter.notifyMatchFailure(op, "part of a fragment");
    Location loc = op.getLoc();
    Type dstElt = op.getTarget().getType().getElementType();
    CopyEnd from(rewriter, loc, src->memref, op.getMixedSourceOffsets(),
                 op.getSourceSizes());
    CopyEnd to(rewriter, loc, dst ? dst->memref : op.getTarget(),
               op.getMixedTargetOffsets(), op.getTargetSizes());
    SmallVector<int64_t> tile = op.getTileShape();
    if (tile.empty())
      tile.push_back(1);
    auto load = [&](OpBuilder &b, Location l, ValueRange tileIdx) {
      Value v = memref::LoadOp::create(b, l, from.buffer,
                                       from.indices(b, l, tileIdx));
      return convertElements(b, l, v, dstElt);
    };

    if (dst && dst->scope == Scope::Fragment) {
      forEachHeldElement(
          rewriter, loc, dst->layout, dst->numRegisters,
          [&](OpBuilder &b, Location l, int64_t r, ArrayRef<Value> fragIdx) {
            SmallVector<Value> tileIdx;
            for (int64_t d : to.tileDims)
              tileIdx.push_back(fragIdx[d]);
            memref::StoreOp::create(b, l, load(b, l, tileIdx), dst->memref,
                                    ValueRange{indexConst(b, l, r)});
          });
    } else if (dst && dst->scope == Scope::Local) {
      buildTileLoops(rewriter, loc, tile,
                     [&](OpBuilder &b, Location l, ValueRange tileIdx) {
                       memref::StoreOp::create(b, l, load(b, l, tileIdx),
                                               to.buffer,
                                               to.indices(b, l, tileIdx));
                     });
    } else {
      bool shared = dst && dst->scope == Scope::Shared;
      if (shared)
        barrier(rewriter, loc);
      buildThreadStridedLoop(
          rewriter, loc, numElements(tile), getThreads(op),
          [&](OpBuilder &b, Location l, Value linear) {
            SmallVector<Value> tileIdx = delinearize(b, l, linear, tile);
            SmallVector<Value> idx = to.indices(b, l, tileIdx);
            Value v = load(b, l, tileIdx);
            buildIf(b, l, to.cond(b, l, idx), [&](OpBuilder &tb, Location tl) {
              memref::StoreOp::create(tb, tl, v, to.buffer, idx);
            });
          });
      if (shared)
        barrier(rewriter, loc);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

LogicalResult mlir::tile::prepareReducersForGPU(RewriterBase &rewriter,
                                                KernelOp kernel,
                                                int64_t warpSize) {
  SmallVector<FinalizeReducerOp> finals;
  kernel.walk([&](FinalizeReducerOp op) { finals.push_back(op); });
  if (finals.empty())
    return success();
  if (failed(checkReducerUpdates(kernel)))
    return failure();
  int64_t threads = kernel.getThreads();
  if (threads % warpSize != 0)
    return finals.front().emitOpError()
           << "combines the copies of whole warps: the block's " << threads
           << " threads must be a multiple of " << warpSize;
  int64_t warps = threads / warpSize;
  if (warps == 1)
    return success();
  for (FinalizeReducerOp op : finals) {
    MemRefType type = op.getReducer().getType();
    // A copy a warp; for a fragment, a partial for each element a warp
    // that holds it (none where its replicas are within warps).
    int64_t copies = warps;
    std::optional<Storage> s = getStorage(op.getReducer());
    if (s && s->scope == Scope::Fragment)
      copies = int64_t(1)
               << replicaMasks(s->layout, s->numRegisters, warpSize)
                      .second.size();
    if (copies == 1)
      continue;
    int64_t offset = reserveSharedScratch(
        rewriter, kernel,
        copies * type.getNumElements() *
            llvm::divideCeil(type.getElementTypeBitWidth(), 8));
    op->setAttr(kScratchAttr, rewriter.getI64IntegerAttr(offset));
  }
  return success();
}

void mlir::tile::populateReducerToGPUPatterns(RewritePatternSet &patterns,
                                              const GpuLowering &lowering) {
  patterns.add<FinalizeReducerLowering>(patterns.getContext(), lowering);
  patterns.add<ReducerCopyLowering>(patterns.getContext());
}
