//===- TmaRing.cpp - The TMA ring of a pipeline ---------------------------===//
//
// The stage buffers and mbarriers of a TMA pipeline: arming a stage and
// issuing its loads, releasing it, and where an iteration of the loop (and
// of the runs of a persistent block's tile loop) sits in the ring. See
// Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// Suspend-time hint of the mbarrier waits (nanoseconds).
constexpr int64_t kWaitSuspendHintNs = 10000000;

} // namespace

void nvvm::waitParity(OpBuilder &b, Location l, Value bar, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(b, l, bar, toI32(b, l, parity),
                                        i32Const(b, l, kWaitSuspendHintNs));
}

scf::ForOp nvvm::tileLoopOf(PipelinedOp loop, KernelOp kernel) {
  auto tiles = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (!tiles || tiles->getParentOp() != kernel.getOperation() ||
      tiles.getNumRegionIterArgs() != 0)
    return {};
  return tiles;
}

Value nvvm::tripCount(OpBuilder &b, Location l, Value lower, Value upper,
                      Value step) {
  return arith::MaxSIOp::create(
      b, l,
      arith::CeilDivSIOp::create(b, l, arith::SubIOp::create(b, l, upper, lower),
                                 step),
      indexConst(b, l, 0));
}

Value nvvm::iterationsBefore(OpBuilder &b, Location l, Value tile,
                             Value tileLower, Value tileStep, Value lower,
                             Value upper, Value step) {
  Value runs = arith::DivUIOp::create(
      b, l, arith::SubIOp::create(b, l, tile, tileLower), tileStep);
  return arith::MulIOp::create(b, l, runs, tripCount(b, l, lower, upper, step));
}

void TmaRing::issueResident(OpBuilder &b, Location l,
                            function_ref<Value(Value)> valueAt) const {
  if (resident.empty())
    return;
  MLIRContext *ctx = b.getContext();
  Value bar = sharedPtr(b, l, addIndex(b, l, region, residentBarrierOffset));
  int64_t bytes = 0;
  for (const TmaLoad &load : resident)
    bytes += load.bytes();
  NVVM::MBarrierArriveExpectTxOp::create(
      b, l, Type(), bar, i32Const(b, l, bytes),
      NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA),
      b.getBoolAttr(false), Value());
  for (const TmaLoad &load : resident) {
    SmallVector<Value> offsets =
        offsetValues(b, l, load.tensorOffsets, valueAt);
    issueTmaLoad(b, l, load, offsets, addIndex(b, l, region, load.offset),
                 bar);
  }
}

Value TmaRing::barrierAt(OpBuilder &b, Location l, int64_t offset,
                         Value stage) const {
  return sharedPtr(
      b, l,
      arith::AddIOp::create(
          b, l, addIndex(b, l, region, offset),
          arith::MulIOp::create(b, l, stage, indexConst(b, l, 8))));
}

Value TmaRing::stageAt(OpBuilder &b, Location l, Value stage) const {
  return arith::AddIOp::create(
      b, l, region,
      arith::MulIOp::create(b, l, stage, indexConst(b, l, stageBytes)));
}

void TmaRing::issue(OpBuilder &b, Location l, Value iv, Value stage,
                    function_ref<Value(Value, IRMapping &)> valueAt) const {
  MLIRContext *ctx = b.getContext();
  Value bar = barrierAt(b, l, fullOffset, stage);
  NVVM::MBarrierArriveExpectTxOp::create(
      b, l, Type(), bar, i32Const(b, l, stageBytes),
      NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA),
      b.getBoolAttr(false), Value());
  Value base = stageAt(b, l, stage);
  Value rank;
  if (multicast)
    rank = arith::IndexCastUIOp::create(
        b, l, b.getIndexType(), NVVM::ClusterId::create(b, l, b.getI32Type()));
  for (const TmaLoad &load : loads) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), iv);
    SmallVector<Value> offsets =
        offsetValues(b, l, load.tensorOffsets,
                     [&](Value v) { return valueAt(v, mapping); });
    issueTmaLoad(b, l, load, offsets, addIndex(b, l, base, load.offset),
                 bar, multicast.size, rank);
  }
}

void TmaRing::release(OpBuilder &b, Location l, Value stage) const {
  MLIRContext *ctx = b.getContext();
  Value bar = barrierAt(b, l, emptyOffset, stage);
  if (!multicast) {
    NVVM::MBarrierArriveOp::create(
        b, l, Type(), bar, Value(),
        NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
    return;
  }
  Value lane0 = arith::CmpIOp::create(
      b, l, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b, l, threadId(b, l), indexConst(b, l, kWarpSize)),
      indexConst(b, l, 0));
  scf::IfOp::create(b, l, lane0, [&](OpBuilder &tb, Location tl) {
    for (int64_t r = 0; r < multicast.size; ++r) {
      Value remote = NVVM::MapaOp::create(
          tb, tl, LLVM::LLVMPointerType::get(ctx, 7), bar,
          i32Const(tb, tl, r));
      // (CTA scope, as for a local arrive: what it orders are this
      // warp's wgmma reads of its own block's stage.)
      NVVM::MBarrierArriveOp::create(
          tb, tl, Type(), remote, Value(),
          NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
    }
    scf::YieldOp::create(tb, tl);
  });
}
