//===- Collectives.h - Warp and block collectives on the CPU ---*- C++ -*-===//
//
// The CPU runs a block's threads one after another (Threads.cpp); a warp
// or block collective between them becomes a loop over the threads that
// computes, for each, what the hardware exchange gives it. Private to
// lib/Conversion/TileToCPU.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOCPU_COLLECTIVES_H
#define TILE_LIB_CONVERSION_TILETOCPU_COLLECTIVES_H

#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile::cpu {

/// The lanes of a warp.
constexpr int64_t kLanes = 32;

/// Builders for the arithmetic of the exchanges.
struct Ints {
  OpBuilder &b;
  Location loc;
  Value i32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value idx(int64_t v) { return indexConst(b, loc, v); }
  Value toI32(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), v);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value sel(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value bit(Value mask, Value laneInWarp) { // (mask >> lane) & 1 != 0
    Value sh = arith::ShRUIOp::create(b, loc, mask, laneInWarp);
    Value one = arith::AndIOp::create(b, loc, sh, i32(1));
    return cmp(arith::CmpIPredicate::ne, one, i32(0));
  }
};

/// The loop over the block's threads in which a collective is expanded:
/// the loop's thread `t`, its lane and the lanes [warp0, warpEnd) of its
/// warp, and how to read a value of another thread.
struct LaneLoop {
  RewriterBase &rw;
  Location loc;
  Ints c;
  int64_t threads;
  Value t, tLane, warp0, warpEnd;
  function_ref<FailureOr<Value>(Value, Value)> laneValue;
  /// Set when a value cannot be read from another thread.
  bool bad = false;

  /// `v` as thread `lane` computed it.
  Value at(Value v, Value lane) {
    FailureOr<Value> r = laneValue(v, lane);
    if (failed(r)) {
      bad = true;
      return v;
    }
    return *r;
  }

  /// Folds `step(acc, lane)` over the threads [lo, hi).
  ValueRange fold(Value lo, Value hi, ValueRange init,
                  function_ref<SmallVector<Value>(ValueRange, Value)> step) {
    auto lanes = scf::ForOp::create(
        rw, loc, lo, hi, c.idx(1), init,
        [&](OpBuilder &b, Location l, Value iv, ValueRange acc) {
          OpBuilder::InsertionGuard guard(rw);
          rw.setInsertionPointToEnd(b.getInsertionBlock());
          scf::YieldOp::create(rw, l, step(acc, iv));
        });
    return lanes.getResults();
  }
};

/// vote.sync any / all / uni / ballot over the warp's lanes in the mask.
SmallVector<Value, 2> expandVote(NVVM::VoteSyncOp vote, LaneLoop &ll);

/// match.sync any / all: the lanes of the mask holding the thread's value.
SmallVector<Value, 2> expandMatch(NVVM::MatchSyncOp match, LaneLoop &ll);

/// shfl.sync up / down / bfly / idx.
SmallVector<Value, 2> expandShfl(NVVM::ShflOp shfl, LaneLoop &ll);

/// activemask: the warp's lanes that exist.
SmallVector<Value, 2> expandActiveMask(LaneLoop &ll);

/// bar.red popc / and / or over the block's threads.
SmallVector<Value, 2> expandBarrierReduction(NVVM::BarrierOp bar,
                                             LaneLoop &ll);

} // namespace mlir::tile::cpu

#endif // TILE_LIB_CONVERSION_TILETOCPU_COLLECTIVES_H
