//===- Collectives.cpp - Warp and block collectives on the CPU ------------===//
//
// vote.sync, match.sync, shfl.sync, activemask and bar.red as loops over the
// threads of a block that the CPU runs one after another (see Collectives.h
// and Threads.cpp).
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

/// vote.sync any / all / uni / ballot over the warp's lanes in the mask.
SmallVector<Value, 2> cpu::expandVote(NVVM::VoteSyncOp vote, LaneLoop &ll) {
  RewriterBase &rw = ll.rw;
  Location loc = ll.loc;
  Ints &c = ll.c;
  Value t = ll.t;
  SmallVector<Value, 2> results;
  Value mask = ll.at(vote.getMask(), t);
  Value own = ll.at(vote.getPred(), t);
  NVVM::VoteSyncKind kind = vote.getKind();
  bool ballot = kind == NVVM::VoteSyncKind::ballot;
  Value init =
      ballot ? c.i32(0)
             : arith::ConstantOp::create(
                   rw, loc, rw.getBoolAttr(kind != NVVM::VoteSyncKind::any));
  ValueRange r =
      ll.fold(ll.warp0, ll.warpEnd, init, [&](ValueRange acc, Value l) {
        Value lane = c.toI32(arith::RemUIOp::create(rw, loc, l, c.idx(kLanes)));
        Value in = c.bit(mask, lane);
        Value p = ll.at(vote.getPred(), l);
        Value next;
        switch (kind) {
        case NVVM::VoteSyncKind::any:
          next = arith::OrIOp::create(rw, loc, acc[0],
                                      arith::AndIOp::create(rw, loc, in, p));
          break;
        case NVVM::VoteSyncKind::all:
          next = arith::AndIOp::create(
              rw, loc, acc[0],
              arith::OrIOp::create(rw, loc,
                                   c.cmp(arith::CmpIPredicate::eq, in,
                                         arith::ConstantOp::create(
                                             rw, loc, rw.getBoolAttr(false))),
                                   p));
          break;
        case NVVM::VoteSyncKind::uni:
          next = arith::AndIOp::create(
              rw, loc, acc[0],
              arith::OrIOp::create(rw, loc,
                                   c.cmp(arith::CmpIPredicate::eq, in,
                                         arith::ConstantOp::create(
                                             rw, loc, rw.getBoolAttr(false))),
                                   c.cmp(arith::CmpIPredicate::eq, p, own)));
          break;
        case NVVM::VoteSyncKind::ballot: {
          Value set = arith::AndIOp::create(rw, loc, in, p);
          Value bitv = arith::ShLIOp::create(
              rw, loc, arith::ExtUIOp::create(rw, loc, rw.getI32Type(), set),
              lane);
          next = arith::OrIOp::create(rw, loc, acc[0], bitv);
          break;
        }
        }
        return SmallVector<Value>{next};
      });
  Value v = r[0];
  if (v.getType() != vote.getType())
    v = arith::ExtUIOp::create(rw, loc, vote.getType(), v);
  results.push_back(v);
  return results;
}

/// match.sync any / all: the lanes of the mask holding the thread's value.
SmallVector<Value, 2> cpu::expandMatch(NVVM::MatchSyncOp match, LaneLoop &ll) {
  RewriterBase &rw = ll.rw;
  Location loc = ll.loc;
  Ints &c = ll.c;
  Value t = ll.t;
  SmallVector<Value, 2> results;
  Value mask = ll.at(match.getThreadMask(), t);
  Value own = ll.at(match.getVal(), t);
  bool any = match.getKind() == NVVM::MatchSyncKind::any;
  Value allTrue = arith::ConstantOp::create(rw, loc, rw.getBoolAttr(true));
  ValueRange r = ll.fold(
      ll.warp0, ll.warpEnd, ValueRange{c.i32(0), allTrue},
      [&](ValueRange acc, Value l) {
        Value lane = c.toI32(arith::RemUIOp::create(rw, loc, l, c.idx(kLanes)));
        Value in = c.bit(mask, lane);
        Value eq =
            c.cmp(arith::CmpIPredicate::eq, ll.at(match.getVal(), l), own);
        Value bitv = arith::ShLIOp::create(rw, loc, c.i32(1), lane);
        Value hit = arith::AndIOp::create(rw, loc, in, any ? eq : in);
        Value m =
            arith::OrIOp::create(rw, loc, acc[0], c.sel(hit, bitv, c.i32(0)));
        Value same = arith::AndIOp::create(
            rw, loc, acc[1],
            arith::OrIOp::create(rw, loc,
                                 c.cmp(arith::CmpIPredicate::eq, in,
                                       arith::ConstantOp::create(
                                           rw, loc, rw.getBoolAttr(false))),
                                 eq));
        return SmallVector<Value>{m, same};
      });
  if (any) {
    results.push_back(r[0]);
  } else {
    // match.all: the lanes of the mask that exist, when they all agree.
    results.push_back(c.sel(r[1], r[0], c.i32(0)));
    results.push_back(r[1]);
  }
  return results;
}

/// shfl.sync up / down / bfly / idx.
SmallVector<Value, 2> cpu::expandShfl(NVVM::ShflOp shfl, LaneLoop &ll) {
  RewriterBase &rw = ll.rw;
  Location loc = ll.loc;
  Ints &c = ll.c;
  Value t = ll.t, warp0 = ll.warp0;
  int64_t threads = ll.threads;
  SmallVector<Value, 2> results;
  // PTX's shfl.sync: the source lane j from the mode, the offset b and
  // the clamp / segment mask c; out of range, or past the block's last
  // thread, a lane reads its own value.
  Value b = ll.at(shfl.getOffset(), t);
  Value cc = ll.at(shfl.getMaskAndClamp(), t);
  Value lane = c.toI32(ll.tLane);
  Value seg = arith::AndIOp::create(
      rw, loc, arith::ShRUIOp::create(rw, loc, cc, c.i32(8)), c.i32(0x1F));
  Value notSeg = arith::XOrIOp::create(rw, loc, seg, c.i32(-1));
  Value cval = arith::AndIOp::create(rw, loc, cc, c.i32(0x1F));
  Value minLane = arith::AndIOp::create(rw, loc, lane, seg);
  Value maxLane = arith::OrIOp::create(
      rw, loc, minLane, arith::AndIOp::create(rw, loc, cval, notSeg));
  Value j, ok;
  using P = arith::CmpIPredicate;
  switch (shfl.getKind()) {
  case NVVM::ShflKind::up:
    j = arith::SubIOp::create(rw, loc, lane, b);
    ok = c.cmp(P::sge, j, maxLane);
    break;
  case NVVM::ShflKind::down:
    j = arith::AddIOp::create(rw, loc, lane, b);
    ok = c.cmp(P::sle, j, maxLane);
    break;
  case NVVM::ShflKind::bfly:
    j = arith::XOrIOp::create(rw, loc, lane, b);
    ok = c.cmp(P::sle, j, maxLane);
    break;
  case NVVM::ShflKind::idx:
    j = arith::OrIOp::create(
        rw, loc, minLane,
        arith::AndIOp::create(
            rw, loc, arith::AndIOp::create(rw, loc, b, c.i32(0x1F)), notSeg));
    ok = c.cmp(P::sle, j, maxLane);
    break;
  }
  Value src = arith::AddIOp::create(
      rw, loc, warp0,
      arith::IndexCastOp::create(rw, loc, rw.getIndexType(),
                                 c.sel(ok, j, lane)));
  Value exists = arith::CmpIOp::create(rw, loc, P::ult, src, c.idx(threads));
  src = arith::SelectOp::create(rw, loc, exists, src, t);
  results.push_back(ll.at(shfl.getVal(), src));
  return results;
}

/// activemask: the warp's lanes that exist.
SmallVector<Value, 2> cpu::expandActiveMask(LaneLoop &ll) {
  RewriterBase &rw = ll.rw;
  Location loc = ll.loc;
  Ints &c = ll.c;
  SmallVector<Value, 2> results;
  // Every lane of the warp that exists reaches a collective at block
  // level (one under per-thread control is an error).
  Value n = c.toI32(arith::SubIOp::create(rw, loc, ll.warpEnd, ll.warp0));
  Value part = arith::SubIOp::create(
      rw, loc, arith::ShLIOp::create(rw, loc, c.i32(1), n), c.i32(1));
  results.push_back(c.sel(c.cmp(arith::CmpIPredicate::eq, n, c.i32(kLanes)),
                          c.i32(-1), part));
  return results;
}

/// bar.red popc / and / or over the block's threads.
SmallVector<Value, 2> cpu::expandBarrierReduction(NVVM::BarrierOp bar,
                                             LaneLoop &ll) {
  RewriterBase &rw = ll.rw;
  Location loc = ll.loc;
  Ints &c = ll.c;
  int64_t threads = ll.threads;
  SmallVector<Value, 2> results;
  Value count =
      ll.fold(c.idx(0), c.idx(threads), ValueRange{c.i32(0)},
              [&](ValueRange acc, Value l) {
                Value p = ll.at(bar.getReductionPredicate(), l);
                Value set = c.cmp(arith::CmpIPredicate::ne, p, c.i32(0));
                return SmallVector<Value>{arith::AddIOp::create(
                    rw, loc, acc[0],
                    arith::ExtUIOp::create(rw, loc, rw.getI32Type(), set))};
              })[0];
  Value r;
  switch (*bar.getReductionOp()) {
  case NVVM::BarrierReduction::POPC:
    r = count;
    break;
  case NVVM::BarrierReduction::AND:
    r = arith::ExtUIOp::create(
        rw, loc, rw.getI32Type(),
        c.cmp(arith::CmpIPredicate::eq, count, c.i32(threads)));
    break;
  case NVVM::BarrierReduction::OR:
    r = arith::ExtUIOp::create(
        rw, loc, rw.getI32Type(),
        c.cmp(arith::CmpIPredicate::ne, count, c.i32(0)));
    break;
  }
  results.push_back(r);
  return results;
}
