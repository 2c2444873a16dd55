//===- WarpSpecialize.cpp - The producer warpgroup of a TMA pipeline ------===//
//
// A TMA pipeline whose loads a warpgroup of their own issues: the block
// splits into the consumers (the kernel as written) and the producer, which
// loads each stage once the consumers released it and hands it to them
// through named barriers. See Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

bool nvvm::canSpecialize(PipelinedOp loop, KernelOp kernel,
                         const TmaLoopPlan &plan) {
  if (auto flag = loop->getAttrOfType<BoolAttr>(kWarpSpecializeAttr);
      flag && !flag.getValue())
    return false;
  // One stage: a producer could not load ahead (the only slot is free once
  // the gemms have read it), and its warpgroup would double the block's
  // registers, halving the blocks an SM holds.
  if (loop.getNumStages() < 2)
    return false;
  int64_t threads = kernel.getThreads();
  scf::ForOp tiles = tileLoopOf(loop, kernel);
  // (Resident buffers would change per tile.)
  if (loop.getNumStages() > kNamedBarriers - kFirstStageBarrier ||
      (loop->getParentOp() != kernel.getOperation() && !tiles) ||
      (tiles && !plan.resident.empty()) || threads % kWarpgroupSize != 0 ||
      threads + kWarpgroupSize > 1024)
    return false;
  int64_t loops = 0;
  kernel.walk([&](PipelinedOp) { ++loops; });
  if (loops != 1)
    return false;
  // The producer recomputes them: from the block ids, values from outside
  // the kernel, pure ops and (the loads' offsets) the induction variables.
  // The loop's bounds are the same in every tile.
  SmallVector<Value> bounds = {loop.getLower(), loop.getUpper(),
                               loop.getStep()};
  SmallVector<Value> ivs = {loop.getInductionVar()};
  if (tiles) {
    bounds.append({tiles.getLowerBound(), tiles.getUpperBound(),
                   tiles.getStep()});
    ivs.push_back(tiles.getInductionVar());
  }
  for (Value v : bounds)
    if (!computableFrom(v, kernel, {}))
      return false;
  for (const TmaLoad &load : plan.loads)
    for (OpFoldResult ofr : load.tensorOffsets)
      if (auto v = dyn_cast<Value>(ofr); v && !computableFrom(v, kernel, ivs))
        return false;
  return true;
}

namespace {

/// The SMs of the Hopper GPUs of this target (H100 / H200 SXM: 132).
constexpr int64_t kHopperSMs = 132;

/// Whether the kernel's grid, known at compile time, has at most one block
/// for each SM of the GPU.
bool fitsOneWave(KernelOp kernel) {
  if (!kernel.getDynamicGrid().empty())
    return false;
  int64_t blocks = 1;
  for (int64_t extent : kernel.getStaticGrid()) {
    if (ShapedType::isDynamic(extent))
      return false;
    blocks *= extent;
  }
  return blocks <= kHopperSMs;
}

/// The registers a thread of a warpgroup holds for the accumulators of
/// `wgmmas` (two 64-row blocks a warpgroup: twice m64nN's N / 2).
int64_t accumulatorRegisters(ArrayRef<GemmOp> wgmmas) {
  llvm::SmallPtrSet<Value, 4> seen;
  int64_t registers = 0;
  for (GemmOp gemm : wgmmas)
    if (seen.insert(gemm.getC()).second)
      registers += gemm.getMmaAttr().getRepeats() * gemm.getMmaAttr().getN() / 2;
  return registers;
}

/// Whether the TMA pipeline `plan` of `loop` is better off with a producer
/// warpgroup (where it can have one).
bool wantsProducer(PipelinedOp loop, KernelOp kernel, const TmaLoopPlan &plan) {
  if (!canSpecialize(loop, kernel, plan))
    return false;
  // One consumer warpgroup whose accumulators alone take 128 registers a
  // thread, in a grid of more blocks than SMs: a producer warpgroup (which
  // the launch gives the kernel's registers too) would halve the blocks an
  // SM holds, and they hide more latency than a producer running ahead
  // (H100: TileLang's 128x128x32 GEMM on 128 threads at 4096^3 0.44 ms with
  // a producer, 0.27 ms without; flash attention 128x64 on 128 threads
  // 15-40% faster). Smaller accumulators leave room for both, and the
  // producer helps (64x64 tiles with d = 128: 20% slower without it). A
  // persistent block (a tile loop) keeps its producer: it loads the next
  // tile while the consumers store this one.
  return tileLoopOf(loop, kernel) || kernel.getThreads() > kWarpgroupSize ||
         accumulatorRegisters(plan.wgmmas) < 128 || fitsOneWave(kernel);
}

} // namespace

LogicalResult mlir::tile::specializeWarpsForNVVM(KernelOp kernel, int sm) {
  if (sm < 90 || kernel->hasAttr(kProducerThreadsAttr))
    return success();
  SmallVector<PipelinedOp> loops;
  kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
  for (PipelinedOp loop : loops) {
    std::optional<TmaLoopPlan> plan = planSelectedTmaLoop(loop);
    if (plan && wantsProducer(loop, kernel, *plan))
      kernel->setAttr(kProducerThreadsAttr,
                      IntegerAttr::get(IntegerType::get(kernel.getContext(), 64),
                                       kWarpgroupSize));
  }
  return success();
}

namespace {

/// A loop over the iterations of `loop` in the producer warpgroup's code
/// (nested in a copy of its tile loop `tiles`, if any), its
/// bounds recomputed there: body(builder, loc, iv, slot, outer), with the
/// iteration's ring slot and the mapping of the recomputed values.
void buildProducerLoop(
    RewriterBase &rewriter, OpBuilder &b, Location l, PipelinedOp loop,
    scf::ForOp tiles, int64_t numStages,
    function_ref<void(OpBuilder &, Location, Value, RingSlot, IRMapping &)>
        body) {
  auto kernel = loop->getParentOfType<KernelOp>();
  IRMapping outer;
  auto iterations = [&](OpBuilder &ib, Location il, Value base) {
    Value lower = cloneDependencies(rewriter, loop.getLower(), kernel, outer);
    Value upper = cloneDependencies(rewriter, loop.getUpper(), kernel, outer);
    Value step = cloneDependencies(rewriter, loop.getStep(), kernel, outer);
    scf::ForOp::create(
        ib, il, lower, upper, step, ValueRange{},
        [&](OpBuilder &lb, Location ll, Value iv, ValueRange) {
          body(lb, ll, iv, ringSlot(lb, ll, iv, lower, step, numStages, base),
               outer);
          scf::YieldOp::create(lb, ll);
        });
  };
  if (!tiles) {
    iterations(b, l, Value());
    return;
  }
  Value tileLower =
      cloneDependencies(rewriter, tiles.getLowerBound(), kernel, outer);
  Value tileUpper =
      cloneDependencies(rewriter, tiles.getUpperBound(), kernel, outer);
  Value tileStep = cloneDependencies(rewriter, tiles.getStep(), kernel, outer);
  scf::ForOp::create(
      b, l, tileLower, tileUpper, tileStep, ValueRange{},
      [&](OpBuilder &tb, Location tl, Value tile, ValueRange) {
        outer.map(tiles.getInductionVar(), tile);
        Value base = iterationsBefore(
            tb, tl, tile, tileLower, tileStep,
            cloneDependencies(rewriter, loop.getLower(), kernel, outer),
            cloneDependencies(rewriter, loop.getUpper(), kernel, outer),
            cloneDependencies(rewriter, loop.getStep(), kernel, outer));
        iterations(tb, tl, base);
        scf::YieldOp::create(tb, tl);
      });
}

/// Moves the kernel's code from `firstOriginal` on (but its register
/// arrays) into the consumer threads, 0 .. `threads` - 1: the then branch
/// of the scf.if it returns, which has an else branch for the producer.
scf::IfOp splitConsumers(RewriterBase &rewriter, Location loc, KernelOp kernel,
                         Operation *firstOriginal) {
  int64_t threads = kernel.getThreads();
  Operation *terminator = kernel.getBodyBlock().getTerminator();
  SmallVector<Operation *> moved;
  // Register arrays stay in the kernel's entry block, where LLVM promotes
  // them to registers.
  for (Operation *op = firstOriginal; op != terminator; op = op->getNextNode())
    if (!isa<memref::AllocaOp>(op))
      moved.push_back(op);
  rewriter.setInsertionPoint(terminator);
  Value consumer = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ult, threadId(rewriter, loc),
      indexConst(rewriter, loc, threads));
  auto split = scf::IfOp::create(rewriter, loc, TypeRange{}, consumer,
                                 /*withElseRegion=*/true);
  split->setAttr(kConsumerThreadsAttr, rewriter.getI64IntegerAttr(threads));
  Block *thenBlock = &split.getThenRegion().front();
  for (Operation *op : moved)
    rewriter.moveOpBefore(op, thenBlock->getTerminator());
  return split;
}

/// setmaxnreg moves registers from the producer (the else branch of
/// `split`) to the `threads` consumers (its then branch) of a loop with
/// `wgmmas`; only when the register file, not the per-thread limit, bounds
/// the consumers and their accumulators are large (otherwise ptxas cannot
/// tell the register count at entry and ignores setmaxnreg). Leaves the
/// rewriter at the start of the producer's code.
void rebalanceRegisters(RewriterBase &rewriter, Location loc, scf::IfOp split,
                        ArrayRef<GemmOp> wgmmas, int64_t threads) {
  MLIRContext *ctx = split.getContext();
  int64_t accumulators = 0;
  llvm::SmallDenseSet<Value> counted;
  for (GemmOp gemm : wgmmas)
    if (counted.insert(gemm.getC()).second)
      accumulators += getStorage(gemm.getC())->numRegisters;
  bool rebalance =
      accumulators >= kRebalanceAccumulators &&
      (threads + kWarpgroupSize) * kMaxThreadRegisters > kRegisterFile;
  int64_t consumerRegs = std::min<int64_t>(
      kMaxRegisters,
      (kRegisterFile - kWarpgroupSize * kProducerRegisters) / threads / 8 * 8);
  if (rebalance) {
    rewriter.setInsertionPointToStart(&split.getThenRegion().front());
    NVVM::SetMaxRegisterOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(consumerRegs),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::increase));
  }
  rewriter.setInsertionPointToStart(&split.getElseRegion().front());
  if (rebalance)
    NVVM::SetMaxRegisterOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(kProducerRegisters),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::decrease));
}

/// Waits until iteration `iteration` (in `stage`) of `ring` may load: once
/// the consumers released iteration i - S, phase (i / S) - 1 of the stage's
/// empty barrier.
void waitUntilFree(OpBuilder &b, Location l, const TmaRing &ring,
                   Value iteration, Value stage) {
  int64_t numStages = ring.numStages;
  Value reused = arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge,
                                       iteration, indexConst(b, l, numStages));
  scf::IfOp::create(b, l, reused, [&](OpBuilder &wb, Location wl) {
    Value phase = arith::RemUIOp::create(
        wb, wl,
        addIndex(wb, wl,
                 arith::DivUIOp::create(wb, wl, iteration,
                                        indexConst(wb, wl, numStages)),
                 1),
        indexConst(wb, wl, 2));
    waitParity(wb, wl, ring.barrierAt(wb, wl, ring.emptyOffset, stage),
               phase);
    scf::YieldOp::create(wb, wl);
  });
}

/// The code of the producer's first thread (where `b` builds): the
/// resident loads, then each iteration's once its stage is free; in a
/// cluster, a final wait until no other block will arrive on this block's
/// barriers.
void buildLoader(RewriterBase &rewriter, OpBuilder &b, Location l,
                 PipelinedOp loop, const TmaRing &ring) {
  auto kernel = loop->getParentOfType<KernelOp>();
  int64_t numStages = ring.numStages;
  IRMapping residentMapping;
  ring.issueResident(b, l, [&](Value v) {
    return cloneDependencies(rewriter, v, kernel, residentMapping);
  });
  buildProducerLoop(
      rewriter, b, l, loop, ring.tiles, numStages,
      [&](OpBuilder &lb, Location ll, Value iv, RingSlot slot,
          IRMapping &outer) {
        waitUntilFree(lb, ll, ring, slot.iteration, slot.stage);
        IRMapping mapping = outer;
        ring.issue(lb, ll, iv, slot.stage, [&](Value v, IRMapping &m) {
          for (auto [from, to] : m.getValueMap())
            mapping.map(from, to);
          return cloneDependencies(rewriter, v, kernel, mapping);
        });
      });
  if (!ring.multicast)
    return;
  // The block may exit only once no other block of the cluster will
  // arrive on its barriers: wait until every stage is free again, as
  // if iterations N .. N + S - 1 followed (every block's consumers
  // release their last stages after the loop).
  IRMapping bounds;
  Value trips = tripCount(
      b, l, cloneDependencies(rewriter, loop.getLower(), kernel, bounds),
      cloneDependencies(rewriter, loop.getUpper(), kernel, bounds),
      cloneDependencies(rewriter, loop.getStep(), kernel, bounds));
  scf::ForOp::create(
      b, l, trips, addIndex(b, l, trips, numStages), indexConst(b, l, 1),
      ValueRange{}, [&](OpBuilder &tb, Location tl, Value i, ValueRange) {
        waitUntilFree(tb, tl, ring, i,
                      arith::RemUIOp::create(tb, tl, i,
                                             indexConst(tb, tl, numStages)));
        scf::YieldOp::create(tb, tl);
      });
}

/// The code of the producer's second warp (where `b` builds), which passes
/// each stage on to the `threads` consumers: it waits for the stage's full
/// barrier, then arrives on its named barriers.
void buildSignaller(RewriterBase &rewriter, OpBuilder &b, Location l,
                    PipelinedOp loop, const TmaRing &ring, int64_t threads) {
  int64_t numStages = ring.numStages;
  buildProducerLoop(
      rewriter, b, l, loop, ring.tiles, numStages,
      [&](OpBuilder &lb, Location ll, Value, RingSlot slot, IRMapping &) {
        Value phase = arith::RemUIOp::create(
            lb, ll,
            arith::DivUIOp::create(lb, ll, slot.iteration,
                                   indexConst(lb, ll, numStages)),
            indexConst(lb, ll, 2));
        waitParity(lb, ll,
                   ring.barrierAt(lb, ll, ring.fullOffset, slot.stage), phase);
        int64_t groups = ring.handoffGroups;
        Value first = arith::AddIOp::create(
            lb, ll,
            arith::MulIOp::create(lb, ll, toI32(lb, ll, slot.stage),
                                  i32Const(lb, ll, groups)),
            i32Const(lb, ll, kFirstStageBarrier));
        for (int64_t g = 0; g < groups; ++g)
          NVVM::BarrierArriveOp::create(
              lb, ll,
              arith::AddIOp::create(lb, ll, first, i32Const(lb, ll, g)),
              i32Const(lb, ll, threads / groups + kWarpSize));
      });
}

} // namespace

void nvvm::addProducerWarpgroup(RewriterBase &rewriter, PipelinedOp loop,
                                TmaRing &ring, Operation *firstOriginal,
                                ArrayRef<GemmOp> wgmmas) {
  Location loc = loop.getLoc();
  auto kernel = loop->getParentOfType<KernelOp>();
  int64_t threads = kernel.getThreads();
  scf::IfOp split = splitConsumers(rewriter, loc, kernel, firstOriginal);
  rebalanceRegisters(rewriter, loc, split, wgmmas, threads);
  Value isProducer = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq, threadId(rewriter, loc),
      indexConst(rewriter, loc, threads));
  buildIf(rewriter, loc, isProducer, [&](OpBuilder &b, Location l) {
    buildLoader(rewriter, b, l, loop, ring);
  });
  Value tidNow = threadId(rewriter, loc);
  Value isSignaller = arith::AndIOp::create(
      rewriter, loc,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, tidNow,
                            indexConst(rewriter, loc, threads + kWarpSize)),
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, tidNow,
                            indexConst(rewriter, loc, threads + 2 * kWarpSize)));
  buildIf(rewriter, loc, isSignaller, [&](OpBuilder &b, Location l) {
    buildSignaller(rewriter, b, l, loop, ring, threads);
  });
  kernel->setAttr(kProducerThreadsAttr,
                  rewriter.getI64IntegerAttr(kWarpgroupSize));
}
