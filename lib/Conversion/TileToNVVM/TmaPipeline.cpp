//===- TmaPipeline.cpp - TMA pipelines for sm_90a -------------------------===//
//
// Which pipelined loops get a TMA pipeline (planTmaLoop), and
// pipelineWithTma, which gives them one. See Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"

#include "tile/Dialect/Tile/IR/PipelineSchedule.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// The TMA load of `operand` of a gemm of `loop` that it loads once before
/// the loop (flash attention's Q), if it is one: a shared buffer, not yet
/// among the `buffers` TMA fills, that one TMA-able copy fills before the
/// loop, in the loop's block, and only gemms of the loop read.
std::optional<TmaLoad> asResidentLoad(Value operand, PipelinedOp loop,
                                      func::FuncOp func,
                                      const llvm::DenseSet<Value> &buffers) {
  std::optional<Storage> st = getStorage(operand);
  if (buffers.contains(operand) || !isSharedTile(operand) ||
      (st && st->panelRows))
    return std::nullopt;
  CopyOp writer;
  bool onlyGemms = true;
  for (Operation *user : operand.getUsers()) {
    auto copy = dyn_cast<CopyOp>(user);
    if (copy && copy.getTarget() == operand && !writer) {
      writer = copy;
      continue;
    }
    auto reader = dyn_cast<GemmOp>(user);
    onlyGemms &= reader && reader->getParentOp() == loop.getOperation() &&
                 reader.getC() != operand;
  }
  if (!onlyGemms || !writer || writer->getBlock() != loop->getBlock() ||
      !writer->isBeforeInBlock(loop) ||
      !isGlobal(writer.getSource().getType()))
    return std::nullopt;
  return asTmaLoad(writer, PipelinedOp(), func);
}

/// True when `operand` of a gemm in `loop` is a shared tile that the
/// loop's threads write from registers (whole-tile copies from fragments in
/// the loop body: DeepSeek MLA's S_shared, softmax(S) cast to 16 bits) and
/// only the loop's gemms read, whose rows are one 128-byte panel: wgmma
/// reads it from a 1024-byte aligned buffer in the pipeline's region, which
/// the copies write in the 128-byte-swizzled layout (see
/// pipelineWithTma). Only gemms whose warpgroups split N take it (the
/// blocks of more warps than M / 16 that need it); others keep their
/// pipelines.
bool isRegisterWrittenPanel(Value operand, GemmOp gemm, PipelinedOp loop) {
  auto type = cast<MemRefType>(operand.getType());
  if (!isSharedTile(operand) || operand == gemm.getC() ||
      getThreads(gemm) / kWarpSize <= gemm.getM() / 16 ||
      type.getRank() != 2 || !type.getElementType().isIntOrFloat() ||
      type.getDimSize(1) * type.getElementTypeBitWidth() != kPanelBytes * 8)
    return false;
  bool written = false;
  for (Operation *user : operand.getUsers()) {
    if (user->getParentOp() != loop.getOperation())
      return false;
    if (auto reader = dyn_cast<GemmOp>(user)) {
      if (reader.getC() == operand)
        return false;
      continue;
    }
    auto copy = dyn_cast<CopyOp>(user);
    if (!copy || copy.getTarget() != operand ||
        getScope(copy.getSource().getType()) != Scope::Fragment ||
        ArrayRef<int64_t>(copy.getTargetSizes()) != type.getShape() ||
        llvm::any_of(copy.getStaticTargetOffsets(),
                     [](int64_t o) { return o != 0; }))
      return false;
    written = true;
  }
  return written;
}

} // namespace

std::optional<TmaLoopPlan>
nvvm::planTmaLoop(PipelinedOp loop,
                  function_ref<bool(GemmOp, const llvm::DenseSet<Value> &)>
                      runsAsWgmma) {
  int64_t numStages = loop.getNumStages();
  if (numStages < 1 || numStages > 32)
    return std::nullopt;
  auto func = loop->getParentOfType<func::FuncOp>();
  if (!func)
    return std::nullopt;
  TmaLoopPlan plan;
  SmallVector<TmaLoad> &loads = plan.loads;
  llvm::DenseSet<Value> &buffers = plan.buffers;
  SmallVector<GemmOp> gemms;
  for (Operation &op : loop.getBodyBlock().without_terminator()) {
    if (auto gemm = dyn_cast<GemmOp>(op))
      gemms.push_back(gemm);
    auto copy = dyn_cast<CopyOp>(op);
    if (!copy || !isGlobal(copy.getSource().getType()))
      continue;
    if (!isSharedTile(copy.getTarget()))
      continue;
    std::optional<TmaLoad> load = asTmaLoad(copy, loop, func);
    if (!load || buffers.contains(copy.getTarget()))
      return std::nullopt;
    loads.push_back(*load);
    buffers.insert(copy.getTarget());
  }
  if (loads.empty() || gemms.empty())
    return std::nullopt;
  for (GemmOp gemm : gemms)
    for (Value operand : {gemm.getA(), gemm.getB()})
      if (std::optional<TmaLoad> load =
              asResidentLoad(operand, loop, func, buffers)) {
        plan.resident.push_back(*load);
        buffers.insert(operand);
      }
  // (Beside an operand TMA loads, which makes the gemm wgmma or the loop
  // no TMA pipeline either way.)
  for (GemmOp gemm : gemms)
    for (auto [operand, other] : {std::pair(gemm.getA(), gemm.getB()),
                                  std::pair(gemm.getB(), gemm.getA())})
      if (!buffers.contains(operand) && buffers.contains(other) &&
          isRegisterWrittenPanel(operand, gemm, loop)) {
        plan.written.push_back(operand);
        buffers.insert(operand);
      }
  for (GemmOp gemm : gemms) {
    if (!buffers.contains(gemm.getA()) && !buffers.contains(gemm.getB()))
      continue;
    if (!runsAsWgmma(gemm, buffers))
      return std::nullopt;
    plan.wgmmas.push_back(gemm);
  }
  for (TmaLoad &load : loads)
    for (Operation *user : load.copy.getTarget().getUsers()) {
      if (user == load.copy.getOperation())
        continue;
      auto gemm = dyn_cast<GemmOp>(user);
      if (!gemm || gemm->getParentOp() != loop.getOperation() ||
          gemm.getC() == load.copy.getTarget())
        return std::nullopt;
    }
  return plan;
}

std::optional<TmaLoopPlan> nvvm::planSelectedTmaLoop(PipelinedOp loop) {
  return planTmaLoop(
      loop, [](GemmOp gemm, const llvm::DenseSet<Value> &buffers) {
        MmaAttr mma = gemm.getMmaAttr();
        return mma && mma.getKind() == MmaKind::Wgmma &&
               buffers.contains(gemm.getB()) &&
               (buffers.contains(gemm.getA()) ||
                getScope(gemm.getA().getType()) == Scope::Fragment);
      });
}

namespace {

/// A TMA pipeline as pipelineWithTma builds it: what it loads, how it runs,
/// and where its pieces lie in shared memory (from the ring's region, which
/// starts after one swizzle atom of slack at `regionOffset`).
struct TmaPipelinePlan {
  TmaLoopPlan tma;
  int64_t numStages = 0;
  /// A GEMM loop (one wgmma, whose accumulator nothing else in the loop
  /// reads) leaves each iteration's wgmmas in flight until the next one's
  /// (wgmma.wait_group 1). Other loops (flash attention reads S right after
  /// its gemm) wait for each gemm.
  bool inFlight = false;
  /// With a producer warpgroup (see canSpecialize).
  bool specialize = false;
  /// The tile loop of a persistent block whose runs of the loop share the
  /// ring (see tileLoopOf), if any.
  scf::ForOp tiles;
  ClusterMulticast multicast;
  int64_t stageBytes = 0;
  /// Of the region's slack, from the start of dynamic shared memory.
  int64_t regionOffset = 0;
  int64_t fullOffset = 0, emptyOffset = 0, residentBarrierOffset = 0;
  int64_t regionEnd = 0;
  /// Of the panels the loop writes from registers (TmaLoopPlan::written).
  SmallVector<int64_t> writtenOffsets;
  /// The accumulators' stores to global memory after the loop that go out
  /// by TMA: all of them, or none.
  SmallVector<std::pair<CopyOp, TmaBox>> tmaStores;
  /// Per tile: the accumulators' epilogue buffer (none: 0 bytes).
  int64_t epilogueOffset = 0, epilogueBytes = 0;
};

/// How the pipeline `p.tma` of `loop` runs: wgmmas in flight, with a
/// producer warpgroup, per tile, multicast. Fails (at the gemm, changing
/// nothing) when a wgmma cannot have the registers it needs.
LogicalResult planSchedule(PipelinedOp loop, TmaPipelinePlan &p) {
  SmallVector<GemmOp> &wgmmas = p.tma.wgmmas;
  // The ring has a slot for each iteration a load runs ahead of its gemms,
  // and the one they read: num_stages, or where the loop pins its stages,
  // the farthest its loads run ahead, plus one.
  p.numStages = loop.getNumStages();
  PipelineSchedule schedule(loop);
  if (schedule.isPinned()) {
    int64_t ahead = 0;
    for (TmaLoad &load : p.tma.loads)
      ahead = std::max(ahead, schedule.loadDistance(load.copy,
                                                    load.copy.getTarget()));
    p.numStages = std::min(p.numStages, ahead + 1);
  }
  // One stage: the next load waits until the gemm has read the only slot,
  // so no wgmma stays in flight across iterations.
  p.inFlight =
      p.numStages > 1 && wgmmas.size() == 1 &&
      llvm::all_of(wgmmas.front().getC().getUsers(), [&](Operation *user) {
        return user == wgmmas.front().getOperation() ||
               !loop->isAncestor(user);
      });
  auto kernel = loop->getParentOfType<KernelOp>();
  // A loop that runs once per tile of a persistent block shares one ring
  // (and producer) among its runs: the producer loads the next tile while
  // the consumers store this one. tile-warp-specialize decided whether the
  // kernel has a producer warpgroup (tile.producer_threads).
  p.tiles = tileLoopOf(loop, kernel);
  p.specialize = kernel->hasAttr(kProducerThreadsAttr);
  if (p.specialize && !canSpecialize(loop, kernel, p.tma))
    return kernel.emitOpError()
           << "has tile.producer_threads, but its pipelined loop cannot have "
              "a producer warpgroup (it must be the kernel's only one, in "
              "its body or a tile loop, with whole warpgroups, room for one "
              "more and load offsets the producer can compute)";
  if (failed(verifyWgmmaRegisters(wgmmas, kernel.getThreads(), p.specialize)))
    return failure();
  if (!p.specialize)
    p.tiles = {};
  // In a cluster, loads the same in every block are multicast (a loop run
  // once per block, with a producer warpgroup).
  p.multicast = p.specialize && !p.tiles
                    ? planMulticast(loop, kernel, p.tma.loads)
                    : ClusterMulticast();
  return success();
}

/// How many iterations a block without a producer loads before the first:
/// S - 1, so that the slot an iteration loads into was read by the one
/// before it; with one stage, the first iteration's (the next one loads
/// after the block has read the slot).
int64_t loadsAhead(const TmaPipelinePlan &p) {
  return std::max<int64_t>(p.numStages - 1, 1);
}

/// Places the stages, the resident buffers and the barriers of the ring
/// after the `sharedBytes` the kernel has, and gives each load its
/// descriptor argument.
void placeRing(func::FuncOp func, TmaPipelinePlan &p, int64_t sharedBytes) {
  for (TmaLoad &load : p.tma.loads) {
    load.offset = p.stageBytes;
    p.stageBytes += llvm::alignTo(load.bytes(), kSwizzleAtomBytes);
    // A multicast load's boxes are its slices.
    TmaBox box = load;
    if (load.multicast)
      box.rows /= p.multicast.size;
    load.descriptor = getDescriptorArgument(func, box);
  }
  // The region is aligned at run time (dynamic shared memory is only known
  // to be 16-byte aligned): reserve one swizzle atom of slack. Then the
  // stages, the resident buffers, the full barriers, (specialized) the
  // empty barriers and the resident buffers' barrier.
  p.regionOffset = llvm::alignTo(sharedBytes, kSharedAlignment);
  int64_t residentEnd = p.numStages * p.stageBytes;
  for (TmaLoad &load : p.tma.resident) {
    load.offset = residentEnd;
    residentEnd += llvm::alignTo(load.bytes(), kSwizzleAtomBytes);
    load.descriptor = getDescriptorArgument(func, load);
  }
  // Then the panels the loop writes from registers.
  for (Value buffer : p.tma.written) {
    p.writtenOffsets.push_back(residentEnd);
    residentEnd += llvm::alignTo(
        getBufferBytes(cast<MemRefType>(buffer.getType())), kSwizzleAtomBytes);
  }
  p.fullOffset = residentEnd;
  p.emptyOffset = p.fullOffset + p.numStages * 8;
  p.residentBarrierOffset =
      p.emptyOffset + (p.specialize ? p.numStages * 8 : 0);
  p.regionEnd = p.residentBarrierOffset + (p.tma.resident.empty() ? 0 : 8);
}

/// The accumulators' stores to global memory after `loop` (also those
/// written through a shared tile of their own, which become direct ones):
/// by TMA where TMA can store every one of them.
void planStores(RewriterBase &rewriter, PipelinedOp loop, func::FuncOp func,
                TmaPipelinePlan &p) {
  // With or without a producer, the epilogue's shared tile gives way to the
  // stage buffers, free once the loop is done.
  for (GemmOp gemm : p.tma.wgmmas)
    fuseSharedEpilogue(rewriter, loop, gemm.getC());
  // (storeThroughTma writes the panels of warpgroups stacked along M.)
  bool allTma = p.specialize && llvm::all_of(p.tma.wgmmas, [](GemmOp gemm) {
    return gemm.getMmaAttr().getWarpsN() == 1;
  });
  for (GemmOp gemm : p.tma.wgmmas)
    for (Operation *user : gemm.getC().getUsers()) {
      if (!allTma || !stagedEpilogueBytes(loop, gemm.getC(), user))
        continue;
      std::optional<TmaBox> box = asTmaStore(cast<CopyOp>(user), func);
      allTma = box.has_value();
      if (box)
        p.tmaStores.push_back({cast<CopyOp>(user), *box});
    }
  if (!allTma)
    p.tmaStores.clear();
}

/// Per tile, the accumulators' epilogue needs a buffer of its own (the
/// stages hold the next tile's loads), where it fits under `sharedLimit`:
/// for TMA stores, as many panels as fit (rounds of them take turns).
void placeTileEpilogue(PipelinedOp loop, TmaPipelinePlan &p,
                       int64_t sharedLimit) {
  // (TMA reads 128-byte-swizzled panels from 1024-byte aligned buffers.)
  p.epilogueOffset = llvm::alignTo(
      p.regionEnd, p.tmaStores.empty() ? kSharedAlignment : kSwizzleAtomBytes);
  int64_t room =
      sharedLimit - (p.regionOffset + kSwizzleAtomBytes + p.epilogueOffset);
  for (auto &[copy, box] : p.tmaStores)
    p.epilogueBytes = std::max(
        p.epilogueBytes,
        std::min(box.panels(), std::max<int64_t>(room, 0) / box.panelBytes()) *
            box.panelBytes());
  if (p.tmaStores.empty())
    for (GemmOp gemm : p.tma.wgmmas)
      for (Operation *user : gemm.getC().getUsers())
        p.epilogueBytes = std::max(
            p.epilogueBytes, stagedEpilogueBytes(loop, gemm.getC(), user));
  if (p.epilogueBytes > room)
    p.epilogueBytes = 0;
  if (p.epilogueBytes > 0)
    p.regionEnd = p.epilogueOffset + p.epilogueBytes;
}

/// The loop stays rolled (`.pragma "nounroll"`). ptxas fully unrolls a
/// wgmma loop whose trip count it knows: to fold the ring slot's
/// divisions by a stage count that is not a power of two (64 iterations of
/// 128x256 wgmmas: 46-135 s in ptxas), and at 4 stages up to some 32
/// iterations (128 HGMMA, 24 s); the wgmmas are asynchronous, so the
/// unrolled copies gain nothing. (This also keeps LLVM from peeling the
/// first iteration. The loop's lowering carries the attribute on to the
/// latch branch: scf-to-cf and cf-to-llvm to llvm.br's loop_annotation.)
void keepRolled(RewriterBase &rewriter, PipelinedOp loop) {
  MLIRContext *ctx = loop.getContext();
  loop->setAttr(kLoopAnnotationAttr,
                LLVM::LoopAnnotationAttr::get(
                    ctx, /*disableNonforced=*/nullptr, /*vectorize=*/nullptr,
                    /*interleave=*/nullptr,
                    LLVM::LoopUnrollAttr::get(
                        ctx, /*disable=*/rewriter.getBoolAttr(true),
                        /*count=*/nullptr, /*runtimeDisable=*/nullptr,
                        /*full=*/nullptr, /*followupUnrolled=*/nullptr,
                        /*followupRemainder=*/nullptr,
                        /*followupAll=*/nullptr),
                    /*unrollAndJam=*/nullptr, /*licm=*/nullptr,
                    /*distribute=*/nullptr, /*pipeline=*/nullptr,
                    /*peeled=*/nullptr, /*unswitch=*/nullptr,
                    /*mustProgress=*/nullptr, /*isVectorized=*/nullptr,
                    /*startLoc=*/nullptr, /*endLoc=*/nullptr,
                    /*parallelAccesses=*/{}));
}

/// Builds the planned TMA pipeline of a loop, step by step in the order of
/// its methods (each continues where the one before left the rewriter,
/// unless it says where it builds).
class TmaPipelineBuilder {
public:
  TmaPipelineBuilder(RewriterBase &rewriter, PipelinedOp loop,
                     TmaPipelinePlan &p)
      : rewriter(rewriter), loop(loop), p(p), loc(loop.getLoc()),
        kernel(loop->getParentOfType<KernelOp>()),
        threads(kernel.getThreads()) {}

  /// The ring's region, the ring and the leader test: before the loop, or
  /// at the start of the kernel when the block splits into producer and
  /// consumers (after the register arrays, which must stay in the entry
  /// block for LLVM to promote them to registers).
  void createRing();
  /// The ring's mbarriers, initialized by the leader (after everyone is
  /// done with an earlier run of the loop) before anyone uses them.
  void initBarriers();
  /// Without a producer: thread 0 loads the resident buffers and
  /// iterations 0 .. S - 2 up front.
  void issuePrologue();
  /// The resident buffers: read through panel views once they arrived
  /// (before the loop).
  void readResident();
  /// At the start of each iteration: wait for its stage, read it through
  /// panel views. Per tile, the iterations continue the ring where the last
  /// tile left it.
  void acquireStage();
  /// At the end of each iteration: the wgmmas of the previous iteration
  /// (or, when nothing stays in flight, of this one) have completed, so
  /// their stage is free.
  void releaseStage();
  /// After the loop: the last wgmmas complete before anything reads their
  /// accumulators, and (with a producer) the last stage is free.
  void finishLoop();
  /// The accumulators' stores after the loop, through shared memory.
  void storeAccumulators();
  /// The producer warpgroup that issues the ring's loads.
  void addProducer() {
    addProducerWarpgroup(rewriter, loop, ring, firstOriginal, p.tma.wgmmas);
  }

private:
  /// `v`, a value of the loop body, recomputed where the ring issues an
  /// iteration.
  Value inLoop(Value v, IRMapping &mapping) {
    return cloneDependencies(rewriter, v, loop, mapping);
  }

  RewriterBase &rewriter;
  PipelinedOp loop;
  TmaPipelinePlan &p;
  Location loc;
  KernelOp kernel;
  int64_t threads;
  Operation *firstOriginal = nullptr;
  Value smemBase, region, isLeader;
  TmaRing ring = {};
  /// The ring position of the loop's runs before this one (per tile), and
  /// of the current iteration, its stage and the stage count (in the body).
  Value base, iteration, stage, stageCount;
};

void TmaPipelineBuilder::createRing() {
  MLIRContext *ctx = loop.getContext();
  Block &kernelBody = kernel.getBodyBlock();
  firstOriginal = &kernelBody.front();
  while (isa<memref::AllocaOp>(firstOriginal))
    firstOriginal = firstOriginal->getNextNode();
  if (p.specialize)
    rewriter.setInsertionPoint(firstOriginal);
  else
    rewriter.setInsertionPoint(loop);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                                   MemRefLayoutAttrInterface(), workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(rewriter, loc, bytesType);
  smemBase =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, smem);
  region = arith::AndIOp::create(
      rewriter, loc,
      addIndex(rewriter, loc, smemBase,
               p.regionOffset + kSwizzleAtomBytes - 1),
      indexConst(rewriter, loc, ~(kSwizzleAtomBytes - 1)));
  // The loop's writes and its gemms reach the panels it writes through a
  // swizzled view (16-byte chunk c of row r at c ^ (r mod 8): the 128-byte
  // pattern from a 1024-byte aligned base).
  for (auto [buffer, offset] : llvm::zip(p.tma.written, p.writtenOffsets)) {
    auto type = cast<MemRefType>(buffer.getType());
    Value view = sharedView(
        rewriter, loc, type.getShape(), type.getElementType(),
        arith::SubIOp::create(rewriter, loc,
                              addIndex(rewriter, loc, region, offset),
                              smemBase));
    auto panel = BindStorageOp::create(rewriter, loc, type, view);
    panel.setSwizzleChunksAttr(rewriter.getI64IntegerAttr(kPanelBytes / 16));
    rewriter.replaceAllUsesWith(buffer, panel.getResult());
  }
  ring = TmaRing{loop,          p.tma.loads,   region,
                 p.numStages,   p.stageBytes,  p.fullOffset,
                 p.emptyOffset, p.tma.resident, p.residentBarrierOffset};
  ring.tiles = p.tiles;
  ring.multicast = p.multicast;
  int64_t warpgroups = threads / kWarpgroupSize;
  if (!p.inFlight &&
      p.numStages * warpgroups <= kNamedBarriers - kFirstStageBarrier)
    ring.handoffGroups = warpgroups;
  Value tid = threadId(rewriter, loc);
  isLeader =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid,
                            indexConst(rewriter, loc, 0));
}

void TmaPipelineBuilder::initBarriers() {
  barrier(rewriter, loc);
  scf::IfOp::create(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
    for (int64_t s = 0; s < p.numStages; ++s) {
      NVVM::MBarrierInitOp::create(
          b, l, ring.barrierAt(b, l, p.fullOffset, indexConst(b, l, s)),
          i32Const(b, l, 1), Value());
      if (p.specialize)
        NVVM::MBarrierInitOp::create(
            b, l, ring.barrierAt(b, l, p.emptyOffset, indexConst(b, l, s)),
            i32Const(b, l, ring.emptyArrivals(threads)), Value());
    }
    if (!p.tma.resident.empty())
      NVVM::MBarrierInitOp::create(
          b, l,
          sharedPtr(b, l, addIndex(b, l, region, p.residentBarrierOffset)),
          i32Const(b, l, 1), Value());
    NVVM::FenceMbarrierInitOp::create(b, l);
    scf::YieldOp::create(b, l);
  });
  if (p.multicast) {
    // Every block's barriers are initialized before any block multicasts
    // into it or arrives on them.
    NVVM::ClusterArriveOp::create(rewriter, loc, rewriter.getUnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, loc, rewriter.getUnitAttr());
  } else {
    barrier(rewriter, loc);
  }
}

void TmaPipelineBuilder::issuePrologue() {
  Value lower = loop.getLower(), upper = loop.getUpper(), step = loop.getStep();
  scf::IfOp::create(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
    ring.issueResident(b, l, [](Value v) { return v; });
    for (int64_t s = 0; s < loadsAhead(p); ++s) {
      Value iv = arith::AddIOp::create(
          b, l, lower, arith::MulIOp::create(b, l, step, indexConst(b, l, s)));
      Value inRange =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, iv, upper);
      scf::IfOp::create(b, l, inRange, [&](OpBuilder &tb, Location tl) {
        ring.issue(tb, tl, iv, indexConst(tb, tl, s),
                   [&](Value v, IRMapping &m) { return inLoop(v, m); });
        scf::YieldOp::create(tb, tl);
      });
    }
    scf::YieldOp::create(b, l);
  });
}

void TmaPipelineBuilder::readResident() {
  rewriter.setInsertionPoint(loop);
  waitParity(rewriter, loc,
             sharedPtr(rewriter, loc,
                       addIndex(rewriter, loc, region,
                                p.residentBarrierOffset)),
             indexConst(rewriter, loc, 0));
  for (TmaLoad &load : p.tma.resident)
    readThroughPanels(rewriter, loc, load, region, loop);
}

void TmaPipelineBuilder::acquireStage() {
  Value lower = loop.getLower(), upper = loop.getUpper(), step = loop.getStep();
  if (p.tiles) {
    rewriter.setInsertionPoint(loop);
    base = iterationsBefore(rewriter, loc, p.tiles.getInductionVar(),
                            p.tiles.getLowerBound(), p.tiles.getStep(), lower,
                            upper, step);
  }
  rewriter.setInsertionPointToStart(&loop.getBodyBlock());
  RingSlot slot = ringSlot(rewriter, loc, loop.getInductionVar(), lower, step,
                           p.numStages, base);
  iteration = slot.iteration;
  stage = slot.stage;
  stageCount = indexConst(rewriter, loc, p.numStages);
  Value parity = arith::RemUIOp::create(
      rewriter, loc,
      arith::DivUIOp::create(rewriter, loc, iteration, stageCount),
      indexConst(rewriter, loc, 2));
  if (p.specialize) {
    // The producer's signalling warp saw the stage's full barrier complete
    // and arrives on the stage's named barrier: a single bar.sync here. (A
    // spin loop on the mbarrier while wgmmas are in flight makes ptxas
    // serialize every wgmma of the kernel.)
    int64_t groups = ring.handoffGroups;
    Value group = arith::DivUIOp::create(
        rewriter, loc, threadId(rewriter, loc),
        indexConst(rewriter, loc, threads / groups));
    Value id = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, stage,
                              indexConst(rewriter, loc, groups)),
        addIndex(rewriter, loc, group, kFirstStageBarrier));
    NVVM::BarrierOp::create(
        rewriter, loc, Type(), toI32(rewriter, loc, id),
        i32Const(rewriter, loc, threads / groups + kWarpSize), nullptr,
        Value());
    // The phase has completed (the signaller saw it): one non-blocking
    // test acquires it in this thread too, which makes the TMA writes of
    // the stage visible to this thread's wgmmas.
    Value bar = ring.barrierAt(rewriter, loc, p.fullOffset, stage);
    Value addr =
        LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(), bar);
    LLVM::InlineAsmOp::create(
        rewriter, loc, TypeRange{},
        ValueRange{addr, toI32(rewriter, loc, parity)},
        "{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [$0], "
        "$1; }",
        "r,r,~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
        /*operand_attrs=*/nullptr);
  } else {
    waitParity(rewriter, loc,
               ring.barrierAt(rewriter, loc, p.fullOffset, stage), parity);
  }
  Value stageBase = ring.stageAt(rewriter, loc, stage);
  for (TmaLoad &load : p.tma.loads)
    readThroughPanels(rewriter, loc, load, stageBase, loop);
  if (p.inFlight)
    p.tma.wgmmas.front()->setAttr(kWgmmaPendingAttr, rewriter.getUnitAttr());
}

void TmaPipelineBuilder::releaseStage() {
  rewriter.setInsertionPoint(loop.getBodyBlock().getTerminator());
  Value previous = arith::RemUIOp::create(
      rewriter, loc, addIndex(rewriter, loc, iteration, p.numStages - 1),
      stageCount);
  if (p.specialize) {
    // The consumers release it to the producer.
    if (!p.inFlight) {
      ring.release(rewriter, loc, stage);
      return;
    }
    Value notFirst = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ugt, iteration,
        base ? base : indexConst(rewriter, loc, 0));
    buildIf(rewriter, loc, notFirst, [&](OpBuilder &b, Location l) {
      ring.release(b, l, previous);
    });
    return;
  }
  // Once the whole block is past it, thread 0 loads iteration i + S - 1
  // (i + 1 with one stage) into the slot of iteration i - 1 (of i).
  barrier(rewriter, loc);
  Value ahead = arith::AddIOp::create(
      rewriter, loc, loop.getInductionVar(),
      arith::MulIOp::create(rewriter, loc, loop.getStep(),
                            indexConst(rewriter, loc, loadsAhead(p))));
  Value issueAhead = arith::AndIOp::create(
      rewriter, loc,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, ahead,
                            loop.getUpper()),
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                            threadId(rewriter, loc),
                            indexConst(rewriter, loc, 0)));
  buildIf(rewriter, loc, issueAhead, [&](OpBuilder &b, Location l) {
    ring.issue(b, l, ahead, previous,
               [&](Value v, IRMapping &m) { return inLoop(v, m); });
  });
}

void TmaPipelineBuilder::finishLoop() {
  rewriter.setInsertionPointAfter(loop);
  for (GemmOp gemm : p.tma.wgmmas)
    waitForWgmma(rewriter, loc, *getStorage(gemm.getC()), 0);
  if (!p.specialize || !(p.tiles || p.multicast) || !p.inFlight)
    return;
  // The stage of the last iteration is free now: for the next tile's
  // loads (whose first iteration releases nothing), or, in a cluster,
  // for the producer's final wait (see addProducerWarpgroup).
  Value trips = tripCount(rewriter, loc, loop.getLower(), loop.getUpper(),
                          loop.getStep());
  Value ran = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                    trips, indexConst(rewriter, loc, 0));
  buildIf(rewriter, loc, ran, [&](OpBuilder &b, Location l) {
    Value end = base ? arith::AddIOp::create(b, l, base, trips) : trips;
    Value last = arith::RemUIOp::create(b, l, addIndex(b, l, end, -1),
                                        indexConst(b, l, p.numStages));
    ring.release(b, l, last);
  });
}

void TmaPipelineBuilder::storeAccumulators() {
  // The stores' shared buffer: per tile one of their own (the next tile's
  // loads may be in the stages already); otherwise the stage buffers, free
  // once the loop is done (every load was consumed).
  Value epilogue = p.tiles
                       ? addIndex(rewriter, loc, region, p.epilogueOffset)
                       : region;
  int64_t epilogueRoom =
      p.tiles ? p.epilogueBytes : p.numStages * p.stageBytes;
  if (!p.tmaStores.empty() &&
      llvm::all_of(p.tmaStores, [&](auto &store) {
        return store.second.panelBytes() <= epilogueRoom;
      })) {
    for (auto &[copy, box] : p.tmaStores)
      storeThroughTma(rewriter, copy, box, *getStorage(copy.getSource()),
                      epilogue,
                      std::min(box.panels(), epilogueRoom / box.panelBytes()));
    // Thread 0 waits until its stores have read shared memory before the
    // block may exit.
    rewriter.setInsertionPoint(kernel.getBodyBlock().getTerminator());
    buildIf(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, l, 0, b.getUnitAttr());
    });
  } else if (epilogueRoom > 0) {
    for (GemmOp gemm : p.tma.wgmmas)
      stageEpilogue(rewriter, loop, gemm.getC(), smemBase, epilogue,
                    epilogueRoom);
  }
}

} // namespace

FailureOr<bool> nvvm::pipelineWithTma(RewriterBase &rewriter, PipelinedOp loop,
                                      int64_t &sharedBytes,
                                      int64_t sharedLimit) {
  std::optional<TmaLoopPlan> tma = planSelectedTmaLoop(loop);
  if (!tma)
    return false;
  TmaPipelinePlan p;
  p.tma = std::move(*tma);
  if (failed(planSchedule(loop, p)))
    return failure();
  SmallVector<Operation *> loads = llvm::map_to_vector(
      p.tma.loads, [](const TmaLoad &load) -> Operation * { return load.copy; });
  if (failed(PipelineSchedule(loop).applyOrder(rewriter, loads)))
    return failure();
  auto func = loop->getParentOfType<func::FuncOp>();
  placeRing(func, p, sharedBytes);
  planStores(rewriter, loop, func, p);
  if (p.tiles)
    placeTileEpilogue(loop, p, sharedLimit);
  sharedBytes = p.regionOffset + kSwizzleAtomBytes + p.regionEnd;

  TmaPipelineBuilder builder(rewriter, loop, p);
  builder.createRing();
  builder.initBarriers();
  if (!p.specialize)
    builder.issuePrologue();
  if (!p.tma.resident.empty())
    builder.readResident();
  builder.acquireStage();
  builder.releaseStage();
  loop.setNumStages(1);
  keepRolled(rewriter, loop);
  builder.finishLoop();
  builder.storeAccumulators();
  if (p.specialize)
    builder.addProducer();
  return true;
}
