//===- Scan.cpp - tile.scan on GPUs ---------------------------------------===//
//
// A scan of shared and fragment buffers runs on the block's warps. A warp
// scans a line along `dim` in segments of a warp's width (W elements, one a
// lane): a Hillis-Steele scan of the segment by shuffles up (log2 W steps),
// into which the running value of the line's earlier segments (the carry:
// the last lane's result, broadcast) is combined. A reverse scan is the
// same scan over the line read from its end. The lines are dealt out to the
// warps; when the block has more warps than lines, each line is split into
// contiguous parts of whole segments, one a warp: the warps scan their
// parts, publish the parts' totals in shared memory, then combine the
// totals of the parts before theirs into their results. (TileLang scans
// every line with one warp, so that a 1-d scan runs on one warp of the
// block.)
//
// Fragments are scanned in a shared staging copy, as in TileLang: the
// threads store the elements they own, the block scans the copy, and every
// thread reads back the elements its registers hold. Local buffers are each
// thread's own: every thread scans its copy serially.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/TileToGPU/GpuLowering.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

namespace {

bool isBlockScan(ScanOp op) {
  return getScope(op.getSource().getType()) != Scope::Local;
}

bool touchesFragment(ScanOp op) {
  return getScope(op.getSource().getType()) == Scope::Fragment ||
         getScope(op.getTarget().getType()) == Scope::Fragment;
}

/// How a block-wide scan shares its lines among the block's warps.
struct ScanPlan {
  int64_t warpSize = 0; // lanes of a warp: a segment's elements
  int64_t warps = 0;    // whole warps of the block
  int64_t length = 0; // elements of a line
  int64_t lines = 0;
  int64_t warpsPerLine = 1;
  int64_t chunk = 0;        // elements of a warp's part: whole segments
  int64_t eltBytes = 0;
  int64_t stagingBytes = 0; // a fragment's staging copy

  int64_t concurrentLines() const { return warps / warpsPerLine; }
  int64_t totalsOffset() const { return llvm::alignTo(stagingBytes, 16); }
  int64_t scratchBytes() const {
    return warpsPerLine > 1 ? totalsOffset() + warps * eltBytes
                            : stagingBytes;
  }
};

ScanPlan planScan(ScanOp op, int64_t warpSize) {
  ArrayRef<int64_t> sizes = op.getSourceSizes();
  ScanPlan plan;
  plan.warpSize = warpSize;
  plan.warps = getThreads(op) / warpSize;
  plan.length = sizes[op.getDim()];
  plan.lines = numElements(sizes) / plan.length;
  int64_t segments = llvm::divideCeil(plan.length, warpSize);
  int64_t split =
      std::clamp<int64_t>(plan.warps / plan.lines, 1, segments);
  int64_t partSegments = llvm::divideCeil(segments, split);
  plan.warpsPerLine = llvm::divideCeil(segments, partSegments);
  plan.chunk = partSegments * warpSize;
  plan.eltBytes =
      op.getSource().getType().getElementType().getIntOrFloatBitWidth() / 8;
  if (touchesFragment(op))
    plan.stagingBytes = numElements(sizes) * plan.eltBytes;
  return plan;
}

/// `v` from another lane of the warp of `width` lanes (gpu.shuffle `mode`
/// by `offset`), moved as 32-bit words: narrower values widened, 64-bit
/// ones in halves.
Value shuffleLanes(OpBuilder &b, Location loc, Value v, int64_t offset,
                   gpu::ShuffleMode mode, int64_t width) {
  auto word = [&](Value w) {
    return gpu::ShuffleOp::create(b, loc, w, offset, width, mode)
        .getShuffleResult();
  };
  Type type = v.getType();
  bool isFloat = isa<FloatType>(type);
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits == 32)
    return word(v);
  if (bits < 32) {
    if (isFloat)
      return arith::TruncFOp::create(
          b, loc, type,
          word(arith::ExtFOp::create(b, loc, b.getF32Type(), v)));
    return arith::TruncIOp::create(
        b, loc, type, word(arith::ExtSIOp::create(b, loc, b.getI32Type(), v)));
  }
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value bitsOf = isFloat ? arith::BitcastOp::create(b, loc, i64, v) : v;
  Value c32 = arith::ConstantIntOp::create(b, loc, i64, 32);
  Value lo = word(arith::TruncIOp::create(b, loc, i32, bitsOf));
  Value hi = word(arith::TruncIOp::create(
      b, loc, i32, arith::ShRUIOp::create(b, loc, bitsOf, c32)));
  Value joined = arith::OrIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, i64, lo),
      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, hi),
                            c32));
  return isFloat ? arith::BitcastOp::create(b, loc, type, joined) : joined;
}

/// A region the block scan reads or writes: a shared buffer and offsets.
struct Side {
  Value buffer;
  SmallVector<Value> offsets;
};

/// The scan of the lines of a region of `from` into `to` on the block's
/// warps, as `plan` deals them out (see the file comment). `totals` holds
/// the warps' part totals where lines are split.
class BlockScan {
public:
  BlockScan(OpBuilder &b, Location loc, ScanOp op, const ScanPlan &plan,
            Side from, Side to, Value totals)
      : op(op), plan(plan), from(std::move(from)), to(std::move(to)),
        totals(totals), lineShape(op.getSourceSizes()) {
    lineShape.erase(lineShape.begin() + op.getDim());
    Value tid = threadId(b, loc);
    lane = arith::RemUIOp::create(b, loc, tid, c(b, loc, plan.warpSize));
    warp = arith::DivUIOp::create(b, loc, tid, c(b, loc, plan.warpSize));
    slot = arith::DivUIOp::create(b, loc, warp, c(b, loc, plan.warpsPerLine));
    part = arith::RemUIOp::create(b, loc, warp, c(b, loc, plan.warpsPerLine));
    begin = arith::MulIOp::create(b, loc, part, c(b, loc, plan.chunk));
    end = arith::MinUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, begin, c(b, loc, plan.chunk)),
        c(b, loc, plan.length));
  }

  void emit(OpBuilder &b, Location loc);

private:
  static Value c(OpBuilder &b, Location loc, int64_t v) {
    return indexConst(b, loc, v);
  }
  static Value ult(OpBuilder &b, Location loc, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value combine(OpBuilder &b, Location loc, Value acc, Value x) {
    return reduceCombine(b, loc, op.getKind(), acc, x);
  }

  /// Runs body(in range, indices in `from`, indices in `to`, iter values)
  /// for element segment + lane of each segment of this warp's part of
  /// `line`; returns the loop's results.
  ValueRange forEachSegment(
      OpBuilder &b, Location loc, Value line, ValueRange init,
      function_ref<SmallVector<Value>(OpBuilder &, Location, Value,
                                      ArrayRef<Value>, ArrayRef<Value>,
                                      ValueRange)>
          body);
  /// Scans this warp's part of `line`; returns the part's total.
  Value scanPart(OpBuilder &b, Location loc, Value line);
  /// Combines the totals of the earlier parts of `line` into this warp's.
  void addEarlierParts(OpBuilder &b, Location loc, Value line);

  ScanOp op;
  const ScanPlan &plan;
  Side from, to;
  Value totals;
  SmallVector<int64_t> lineShape;
  Value lane, warp, slot, part, begin, end;
};

ValueRange BlockScan::forEachSegment(
    OpBuilder &b, Location loc, Value line, ValueRange init,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value,
                                    ArrayRef<Value>, ArrayRef<Value>,
                                    ValueRange)>
        body) {
  SmallVector<Value> base;
  if (!lineShape.empty())
    base = delinearize(b, loc, line, lineShape);
  auto loop = scf::ForOp::create(
      b, loc, begin, end, c(b, loc, plan.warpSize), init,
      [&](OpBuilder &sb, Location sl, Value seg, ValueRange iter) {
        Value k = arith::AddIOp::create(sb, sl, seg, lane);
        // A reverse scan reads the line from its end.
        Value pos = op.getReverse()
                        ? arith::SubIOp::create(
                              sb, sl, c(sb, sl, plan.length - 1), k)
                        : k;
        SmallVector<Value> idx(base);
        idx.insert(idx.begin() + op.getDim(), pos);
        scf::YieldOp::create(
            sb, sl,
            body(sb, sl, ult(sb, sl, k, end),
                 addOffsets(sb, sl, from.offsets, idx),
                 addOffsets(sb, sl, to.offsets, idx), iter));
      });
  return loop.getResults();
}

Value BlockScan::scanPart(OpBuilder &b, Location loc, Value line) {
  Type elt = op.getSource().getType().getElementType();
  Value identity = reduceIdentity(b, loc, op.getKind(), elt);
  auto body = [&](OpBuilder &sb, Location sl, Value inRange,
                  ArrayRef<Value> fromIdx, ArrayRef<Value> toIdx,
                  ValueRange carry) -> SmallVector<Value> {
    // Lanes past the end of the part hold the identity.
    auto read = scf::IfOp::create(
        sb, sl, inRange,
        [&](OpBuilder &tb, Location tl) {
          scf::YieldOp::create(
              tb, tl,
              ValueRange{memref::LoadOp::create(tb, tl, from.buffer, fromIdx)});
        },
        [&](OpBuilder &eb, Location el) {
          scf::YieldOp::create(eb, el, identity);
        });
    Value x = read.getResult(0);
    for (int64_t offset = 1; offset < plan.warpSize; offset *= 2) {
      Value earlier = shuffleLanes(sb, sl, x, offset, gpu::ShuffleMode::UP,
                                   plan.warpSize);
      Value has = arith::CmpIOp::create(sb, sl, arith::CmpIPredicate::uge,
                                        lane, c(sb, sl, offset));
      x = arith::SelectOp::create(sb, sl, has, combine(sb, sl, earlier, x), x);
    }
    x = combine(sb, sl, carry[0], x);
    buildIf(sb, sl, inRange, [&](OpBuilder &tb, Location tl) {
      memref::StoreOp::create(tb, tl, x, to.buffer, toIdx);
    });
    return {shuffleLanes(sb, sl, x, plan.warpSize - 1, gpu::ShuffleMode::IDX,
                         plan.warpSize)};
  };
  return forEachSegment(b, loc, line, ValueRange{identity}, body)[0];
}

void BlockScan::addEarlierParts(OpBuilder &b, Location loc, Value line) {
  Type elt = op.getSource().getType().getElementType();
  Value first = arith::MulIOp::create(b, loc, slot, c(b, loc, plan.warpsPerLine));
  auto fold = scf::ForOp::create(
      b, loc, first, warp, c(b, loc, 1),
      ValueRange{reduceIdentity(b, loc, op.getKind(), elt)},
      [&](OpBuilder &fb, Location fl, Value w, ValueRange acc) {
        Value t = memref::LoadOp::create(fb, fl, totals, ValueRange{w});
        scf::YieldOp::create(fb, fl, combine(fb, fl, acc[0], t));
      });
  Value prefix = fold.getResult(0);
  forEachSegment(b, loc, line, ValueRange{},
                 [&](OpBuilder &sb, Location sl, Value inRange,
                     ArrayRef<Value>, ArrayRef<Value> toIdx,
                     ValueRange) -> SmallVector<Value> {
                   buildIf(sb, sl, inRange, [&](OpBuilder &tb, Location tl) {
                     Value y =
                         memref::LoadOp::create(tb, tl, to.buffer, toIdx);
                     memref::StoreOp::create(tb, tl, combine(tb, tl, prefix, y),
                                             to.buffer, toIdx);
                   });
                   return {};
                 });
}

void BlockScan::emit(OpBuilder &b, Location loc) {
  int64_t concurrent = plan.concurrentLines();
  int64_t rounds = llvm::divideCeil(plan.lines, concurrent);
  Value working = ult(b, loc, warp, c(b, loc, concurrent * plan.warpsPerLine));
  // Every thread runs every round: the barriers between the phases are the
  // whole block's.
  scf::ForOp::create(
      b, loc, c(b, loc, 0), c(b, loc, rounds), c(b, loc, 1), ValueRange{},
      [&](OpBuilder &rb, Location rl, Value round, ValueRange) {
        Value line = arith::AddIOp::create(
            rb, rl, arith::MulIOp::create(rb, rl, round, c(rb, rl, concurrent)),
            slot);
        Value active = arith::AndIOp::create(
            rb, rl, working, ult(rb, rl, line, c(rb, rl, plan.lines)));
        buildIf(rb, rl, active, [&](OpBuilder &ab, Location al) {
          Value total = scanPart(ab, al, line);
          if (!totals)
            return;
          Value leader = arith::CmpIOp::create(
              ab, al, arith::CmpIPredicate::eq, lane, c(ab, al, 0));
          buildIf(ab, al, leader, [&](OpBuilder &lb, Location ll) {
            memref::StoreOp::create(lb, ll, total, totals, ValueRange{warp});
          });
        });
        if (totals) {
          barrier(rb, rl);
          Value later = arith::CmpIOp::create(
              rb, rl, arith::CmpIPredicate::ne, part, c(rb, rl, 0));
          buildIf(rb, rl, arith::AndIOp::create(rb, rl, active, later),
                  [&](OpBuilder &ab, Location al) {
                    addEarlierParts(ab, al, line);
                  });
          // The next round rewrites the totals.
          barrier(rb, rl);
        }
        scf::YieldOp::create(rb, rl);
      });
}

/// tile.scan: serially in each thread for local buffers, else on the
/// block's warps, fragments through their staging copy.
struct ScanLowering : public OpRewritePattern<ScanOp> {
  ScanLowering(MLIRContext *ctx, int64_t warpSize)
      : OpRewritePattern(ctx), warpSize(warpSize) {}

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Storage> src = getStorage(op.getSource());
    std::optional<Storage> dst = getStorage(op.getTarget());
    if (!src || !dst)
      return rewriter.notifyMatchFailure(op, "buffers not placed");
    if (src->swizzleChunks || src->panelRows || dst->swizzleChunks ||
        dst->panelRows)
      return rewriter.notifyMatchFailure(op, "swizzled shared buffer");
    Location loc = op.getLoc();
    Side from{src->memref, materializeOffsets(rewriter, loc,
                                               op.getMixedSourceOffsets())};
    Side to{dst->memref,
            materializeOffsets(rewriter, loc, op.getMixedTargetOffsets())};
    ArrayRef<int64_t> sizes = op.getSourceSizes();
    if (!isBlockScan(op)) {
      buildSerialScan(rewriter, loc, op.getKind(), sizes, op.getDim(),
                      op.getReverse(), from.buffer, from.offsets, to.buffer,
                      to.offsets);
      rewriter.eraseOp(op);
      return success();
    }
    ScanPlan plan = planScan(op, warpSize);
    auto scratch = op->getAttrOfType<IntegerAttr>(kScratchAttr);
    if (plan.scratchBytes() && !scratch)
      return rewriter.notifyMatchFailure(op, "scan without scratch");
    Type elt = op.getSource().getType().getElementType();
    auto view = [&](ArrayRef<int64_t> shape, int64_t offset) {
      return sharedView(rewriter, loc, shape, elt,
                        indexConst(rewriter, loc, scratch.getInt() + offset));
    };
    Value staging = plan.stagingBytes ? view(sizes, 0) : Value();
    Value totals = plan.warpsPerLine > 1
                       ? view({plan.warps}, plan.totalsOffset())
                       : Value();
    SmallVector<Value> origin(sizes.size(), indexConst(rewriter, loc, 0));
    if (src->scope == Scope::Fragment) {
      storeFragmentToShared(rewriter, loc, *src, staging);
      from = {staging, origin};
    } else {
      barrier(rewriter, loc);
    }
    if (dst->scope == Scope::Fragment)
      to = {staging, origin};
    BlockScan(rewriter, loc, op, plan, from, to, totals).emit(rewriter, loc);
    if (dst->scope == Scope::Fragment) {
      barrier(rewriter, loc);
      forEachHeldElement(
          rewriter, loc, dst->layout, dst->numRegisters,
          [&](OpBuilder &b, Location l, int64_t r, ArrayRef<Value> idx) {
            Value v = memref::LoadOp::create(b, l, staging, idx);
            memref::StoreOp::create(b, l, v, dst->memref,
                                    ValueRange{indexConst(b, l, r)});
          });
    }
    barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

private:
  int64_t warpSize;
};

} // namespace

LogicalResult mlir::tile::prepareScansForGPU(RewriterBase &rewriter,
                                             KernelOp kernel,
                                             int64_t warpSize) {
  SmallVector<ScanOp> scans;
  kernel.walk([&](ScanOp op) {
    if (isBlockScan(op))
      scans.push_back(op);
  });
  if (scans.empty())
    return success();
  int64_t threads = kernel.getThreads();
  if (threads < warpSize)
    return scans.front().emitOpError()
           << "scans with whole warps: the block's " << threads
           << " threads are fewer than a warp (" << warpSize << ")";
  // Every scan synchronizes the block before it writes its scratch and
  // after it last reads it: the scans of a kernel share one scratch.
  int64_t widest = 0;
  for (ScanOp op : scans)
    widest = std::max(widest, planScan(op, warpSize).scratchBytes());
  if (widest == 0)
    return success();
  int64_t offset = reserveSharedScratch(rewriter, kernel, widest);
  for (ScanOp op : scans)
    if (planScan(op, warpSize).scratchBytes())
      op->setAttr(kScratchAttr, rewriter.getI64IntegerAttr(offset));
  return success();
}

void mlir::tile::populateScanToGPUPatterns(RewritePatternSet &patterns,
                                           const GpuLowering &lowering) {
  patterns.add<ScanLowering>(patterns.getContext(), lowering.getWarpSize());
}
