//===- TmaPipeline.cpp - TMA pipelines for sm_90a -------------------------===//
//
// Which pipelined loops get a TMA pipeline (planTmaLoop), and
// pipelineWithTma, which gives them one. See Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

std::optional<TmaLoopPlan>
nvvm::planTmaLoop(PipelinedOp loop,
                  function_ref<bool(GemmOp, const llvm::DenseSet<Value> &)>
                      runsAsWgmma) {
  int64_t numStages = loop.getNumStages();
  if (numStages < 2 || numStages > 32)
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
  // Gemm operands loaded once before the loop (flash attention's Q): a
  // shared buffer that one TMA-able copy fills before the loop, in the
  // loop's block, and only gemms of the loop read.
  for (GemmOp gemm : gemms)
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      std::optional<Storage> st = getStorage(operand);
      if (buffers.contains(operand) || !isSharedTile(operand) ||
          (st && st->panelRows))
        continue;
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
        continue;
      if (std::optional<TmaLoad> load =
              asTmaLoad(writer, PipelinedOp(), func)) {
        plan.resident.push_back(*load);
        buffers.insert(operand);
      }
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

FailureOr<bool> nvvm::pipelineWithTma(RewriterBase &rewriter, PipelinedOp loop,
                                      int64_t &sharedBytes,
                                      int64_t sharedLimit) {
  // The loop tile-select-mma found: its gemms that read what TMA loads ask
  // for wgmma (#tile.mma).
  std::optional<TmaLoopPlan> plan = planTmaLoop(
      loop, [](GemmOp gemm, const llvm::DenseSet<Value> &buffers) {
        MmaAttr mma = gemm.getMmaAttr();
        return mma && mma.getKind() == MmaKind::Wgmma &&
               buffers.contains(gemm.getB()) &&
               (buffers.contains(gemm.getA()) ||
                getScope(gemm.getA().getType()) == Scope::Fragment);
      });
  if (!plan)
    return false;
  int64_t numStages = loop.getNumStages();
  auto func = loop->getParentOfType<func::FuncOp>();
  SmallVector<TmaLoad> &loads = plan->loads;
  SmallVector<TmaLoad> &resident = plan->resident;
  SmallVector<GemmOp> &wgmmas = plan->wgmmas;

  // A GEMM loop (one wgmma, whose accumulator nothing else in the loop
  // reads) leaves each iteration's wgmmas in flight until the next one's
  // (wgmma.wait_group 1). Other loops (flash attention reads S right after
  // its gemm) wait for each gemm.
  bool inFlight =
      wgmmas.size() == 1 &&
      llvm::all_of(wgmmas.front().getC().getUsers(), [&](Operation *user) {
        return user == wgmmas.front().getOperation() ||
               !loop->isAncestor(user);
      });

  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  auto kernel = loop->getParentOfType<KernelOp>();
  int64_t threads = kernel.getThreads();
  // A loop that runs once per tile of a persistent block shares one ring
  // (and producer) among its runs: the producer loads the next tile while
  // the consumers store this one. (Resident buffers would change per tile.)
  scf::ForOp tiles = tileLoopOf(loop, kernel);
  bool specialize =
      canSpecialize(loop, kernel, loads) && (!tiles || resident.empty());
  if (failed(verifyWgmmaRegisters(wgmmas, threads, specialize)))
    return failure();
  if (!specialize)
    tiles = {};
  // In a cluster, loads the same in every block are multicast (a loop run
  // once per block, with a producer warpgroup).
  ClusterMulticast multicast =
      specialize && !tiles ? planMulticast(loop, kernel, loads)
                           : ClusterMulticast();
  int64_t stageBytes = 0;
  for (TmaLoad &load : loads) {
    load.offset = stageBytes;
    stageBytes += llvm::alignTo(load.bytes(), kSwizzleAtomBytes);
    // A multicast load's boxes are its slices.
    TmaBox box = load;
    if (load.multicast)
      box.rows /= multicast.size;
    load.descriptor = getDescriptorArgument(func, box);
  }
  // The region is aligned at run time (dynamic shared memory is only known
  // to be 16-byte aligned): reserve one swizzle atom of slack. Then the
  // stages, the resident buffers, the full barriers, (specialized) the
  // empty barriers and the resident buffers' barrier.
  int64_t regionOffset = llvm::alignTo(sharedBytes, kSharedAlignment);
  int64_t residentEnd = numStages * stageBytes;
  for (TmaLoad &load : resident) {
    load.offset = residentEnd;
    residentEnd += llvm::alignTo(load.bytes(), kSwizzleAtomBytes);
    load.descriptor = getDescriptorArgument(func, load);
  }
  int64_t fullOffset = residentEnd;
  int64_t emptyOffset = fullOffset + numStages * 8;
  int64_t residentBarrierOffset = emptyOffset + (specialize ? numStages * 8 : 0);
  int64_t regionEnd = residentBarrierOffset + (resident.empty() ? 0 : 8);
  // The accumulators' stores to global memory after the loop (also those
  // written through a shared tile of their own): by TMA where TMA can
  // store every one of them.
  if (specialize)
    for (GemmOp gemm : wgmmas)
      fuseSharedEpilogue(rewriter, loop, gemm.getC());
  SmallVector<std::pair<CopyOp, TmaBox>> tmaStores;
  bool allTma = specialize;
  for (GemmOp gemm : wgmmas)
    for (Operation *user : gemm.getC().getUsers()) {
      if (!allTma || !stagedEpilogueBytes(loop, gemm.getC(), user))
        continue;
      std::optional<TmaBox> box = asTmaStore(cast<CopyOp>(user), func);
      allTma = box.has_value();
      if (box)
        tmaStores.push_back({cast<CopyOp>(user), *box});
    }
  if (!allTma)
    tmaStores.clear();
  // Per tile, the accumulators' epilogue needs a buffer of its own (the
  // stages hold the next tile's loads), where it fits: for TMA stores, as
  // many panels as fit (rounds of them take turns).
  int64_t epilogueOffset = 0, epilogueBytes = 0;
  if (tiles) {
    // (TMA reads 128-byte-swizzled panels from 1024-byte aligned buffers.)
    epilogueOffset = llvm::alignTo(
        regionEnd, tmaStores.empty() ? kSharedAlignment : kSwizzleAtomBytes);
    int64_t room =
        sharedLimit - (regionOffset + kSwizzleAtomBytes + epilogueOffset);
    for (auto &[copy, box] : tmaStores)
      epilogueBytes = std::max(
          epilogueBytes,
          std::min(box.panels(), std::max<int64_t>(room, 0) /
                                     box.panelBytes()) *
              box.panelBytes());
    if (tmaStores.empty())
      for (GemmOp gemm : wgmmas)
        for (Operation *user : gemm.getC().getUsers())
          epilogueBytes = std::max(
              epilogueBytes, stagedEpilogueBytes(loop, gemm.getC(), user));
    if (epilogueBytes > room)
      epilogueBytes = 0;
    if (epilogueBytes > 0)
      regionEnd = epilogueOffset + epilogueBytes;
  }
  sharedBytes = regionOffset + kSwizzleAtomBytes + regionEnd;

  // Addresses and barriers: before the loop, or at the start of the
  // kernel when the block splits into producer and consumers.
  // (After the register arrays, which must stay in the entry block for
  // LLVM to promote them to registers.)
  Block &kernelBody = kernel.getBodyBlock();
  Operation *firstOriginal = &kernelBody.front();
  while (isa<memref::AllocaOp>(firstOriginal))
    firstOriginal = firstOriginal->getNextNode();
  if (specialize)
    rewriter.setInsertionPoint(firstOriginal);
  else
    rewriter.setInsertionPoint(loop);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type(),
                                   MemRefLayoutAttrInterface(), workgroup);
  Value smem = gpu::DynamicSharedMemoryOp::create(rewriter, loc, bytesType);
  Value smemBase =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, smem);
  Value region = arith::AndIOp::create(
      rewriter, loc,
      addIndex(rewriter, loc, smemBase,
               regionOffset + kSwizzleAtomBytes - 1),
      indexConst(rewriter, loc, ~(kSwizzleAtomBytes - 1)));
  TmaRing ring{loop,       loads,       region,   numStages,
               stageBytes, fullOffset, emptyOffset, resident,
               residentBarrierOffset};
  ring.tiles = tiles;
  ring.multicast = multicast;
  int64_t warpgroups = threads / kWarpgroupSize;
  if (!inFlight &&
      numStages * warpgroups <= kNamedBarriers - kFirstStageBarrier)
    ring.handoffGroups = warpgroups;
  Value tid = threadId(rewriter, loc);
  Value isLeader =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid,
                            indexConst(rewriter, loc, 0));

  auto inLoop = [&](Value v, IRMapping &mapping) {
    return cloneDependencies(rewriter, v, loop, mapping);
  };

  // Barriers (after everyone is done with an earlier run of the loop).
  Value lower = loop.getLower(), upper = loop.getUpper(), step = loop.getStep();
  barrier(rewriter, loc);
  scf::IfOp::create(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
    for (int64_t s = 0; s < numStages; ++s) {
      NVVM::MBarrierInitOp::create(
          b, l, ring.barrierAt(b, l, fullOffset, indexConst(b, l, s)),
          i32Const(b, l, 1), Value());
      if (specialize)
        NVVM::MBarrierInitOp::create(
            b, l, ring.barrierAt(b, l, emptyOffset, indexConst(b, l, s)),
            i32Const(b, l, ring.emptyArrivals(threads)), Value());
    }
    if (!resident.empty())
      NVVM::MBarrierInitOp::create(
          b, l,
          sharedPtr(b, l, addIndex(b, l, region, residentBarrierOffset)),
          i32Const(b, l, 1), Value());
    NVVM::FenceMbarrierInitOp::create(b, l);
    scf::YieldOp::create(b, l);
  });
  if (multicast) {
    // Every block's barriers are initialized before any block multicasts
    // into it or arrives on them.
    NVVM::ClusterArriveOp::create(rewriter, loc, rewriter.getUnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, loc, rewriter.getUnitAttr());
  } else {
    barrier(rewriter, loc);
  }
  // Without a producer: thread 0 loads the resident buffers and
  // iterations 0 .. S - 2 up front.
  if (!specialize)
    scf::IfOp::create(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
      ring.issueResident(b, l, [](Value v) { return v; });
      for (int64_t s = 0; s + 1 < numStages; ++s) {
        Value iv = arith::AddIOp::create(
            b, l, lower,
            arith::MulIOp::create(b, l, step, indexConst(b, l, s)));
        Value inRange =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, iv, upper);
        scf::IfOp::create(b, l, inRange, [&](OpBuilder &tb, Location tl) {
          ring.issue(tb, tl, iv, indexConst(tb, tl, s), inLoop);
          scf::YieldOp::create(tb, tl);
        });
      }
      scf::YieldOp::create(b, l);
    });

  // The resident buffers: read through panel views once they arrived.
  if (!resident.empty()) {
    rewriter.setInsertionPoint(loop);
    waitParity(rewriter, loc,
               sharedPtr(rewriter, loc,
                         addIndex(rewriter, loc, region,
                                  residentBarrierOffset)),
               indexConst(rewriter, loc, 0));
    for (TmaLoad &load : resident)
      readThroughPanels(rewriter, loc, load, region, loop);
  }

  // Each iteration: wait for its stage, read it through panel views.
  // Per tile, the iterations continue the ring where the last tile left it.
  Value base;
  if (tiles) {
    rewriter.setInsertionPoint(loop);
    base = iterationsBefore(rewriter, loc, tiles.getInductionVar(),
                            tiles.getLowerBound(), tiles.getStep(), lower,
                            upper, step);
  }
  Block &body = loop.getBodyBlock();
  rewriter.setInsertionPointToStart(&body);
  Value k = loop.getInductionVar();
  auto [iteration, stage] =
      ringSlot(rewriter, loc, k, lower, step, numStages, base);
  Value sC = indexConst(rewriter, loc, numStages);
  Value parity = arith::RemUIOp::create(
      rewriter, loc, arith::DivUIOp::create(rewriter, loc, iteration, sC),
      indexConst(rewriter, loc, 2));
  if (specialize) {
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
    NVVM::BarrierOp::create(rewriter, loc, Type(), toI32(rewriter, loc, id),
                            i32Const(rewriter, loc, threads / groups + kWarpSize),
                            nullptr, Value());
    // The phase has completed (the signaller saw it): one non-blocking
    // test acquires it in this thread too, which makes the TMA writes of
    // the stage visible to this thread's wgmmas.
    Value bar = ring.barrierAt(rewriter, loc, fullOffset, stage);
    Value addr = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                          bar);
    LLVM::InlineAsmOp::create(
        rewriter, loc, TypeRange{}, ValueRange{addr, toI32(rewriter, loc, parity)},
        "{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [$0], "
        "$1; }",
        "r,r,~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
        /*operand_attrs=*/nullptr);
  } else {
    waitParity(rewriter, loc, ring.barrierAt(rewriter, loc, fullOffset, stage),
               parity);
  }
  Value stageBase = ring.stageAt(rewriter, loc, stage);
  for (TmaLoad &load : loads)
    readThroughPanels(rewriter, loc, load, stageBase, loop);
  if (inFlight)
    wgmmas.front()->setAttr(kWgmmaPendingAttr, rewriter.getUnitAttr());

  // End of each iteration: the wgmmas of the previous iteration (or, when
  // nothing stays in flight, of this one) have completed, so their stage is
  // free.
  rewriter.setInsertionPoint(body.getTerminator());
  Value previous = arith::RemUIOp::create(
      rewriter, loc, addIndex(rewriter, loc, iteration, numStages - 1), sC);
  if (specialize) {
    // The consumers release it to the producer.
    if (inFlight) {
      Value notFirst = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ugt, iteration,
          base ? base : indexConst(rewriter, loc, 0));
      scf::IfOp::create(rewriter, loc, notFirst, [&](OpBuilder &b, Location l) {
        ring.release(b, l, previous);
        scf::YieldOp::create(b, l);
      });
    } else {
      ring.release(rewriter, loc, stage);
    }
  } else {
    // Once the whole block is past it, thread 0 loads iteration i + S - 1.
    barrier(rewriter, loc);
    Value ahead = arith::AddIOp::create(
        rewriter, loc, k,
        arith::MulIOp::create(rewriter, loc, step,
                              indexConst(rewriter, loc, numStages - 1)));
    Value issueAhead = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, ahead,
                              upper),
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                              threadId(rewriter, loc),
                              indexConst(rewriter, loc, 0)));
    scf::IfOp::create(rewriter, loc, issueAhead, [&](OpBuilder &b, Location l) {
      ring.issue(b, l, ahead, previous, inLoop);
      scf::YieldOp::create(b, l);
    });
  }
  loop.setNumStages(1);
  // The loop stays rolled (`.pragma "nounroll"`). ptxas fully unrolls a
  // wgmma loop whose trip count it knows: to fold the ring slot's
  // divisions by a stage count that is not a power of two (64 iterations of
  // 128x256 wgmmas: 46-135 s in ptxas), and at 4 stages up to some 32
  // iterations (128 HGMMA, 24 s); the wgmmas are asynchronous, so the
  // unrolled copies gain nothing. (This also keeps LLVM from peeling the
  // first iteration. The loop's lowering carries the attribute on to the
  // latch branch: scf-to-cf and cf-to-llvm to llvm.br's loop_annotation.)
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

  // After the loop: the last wgmmas complete before anything reads their
  // accumulators.
  rewriter.setInsertionPointAfter(loop);
  for (GemmOp gemm : wgmmas)
    waitForWgmma(rewriter, loc, *getStorage(gemm.getC()), 0);
  if (!specialize)
    return true;
  if ((tiles || multicast) && inFlight) {
    // The stage of the last iteration is free now: for the next tile's
    // loads (whose first iteration releases nothing), or, in a cluster,
    // for the producer's final wait (see addProducerWarpgroup).
    Value trips = tripCount(rewriter, loc, lower, upper, step);
    Value ran = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                      trips, indexConst(rewriter, loc, 0));
    scf::IfOp::create(rewriter, loc, ran, [&](OpBuilder &b, Location l) {
      Value end = base ? arith::AddIOp::create(b, l, base, trips) : trips;
      Value last = arith::RemUIOp::create(b, l, addIndex(b, l, end, -1),
                                          indexConst(b, l, numStages));
      ring.release(b, l, last);
      scf::YieldOp::create(b, l);
    });
  }
  // The stores' shared buffer: per tile one of their own (the next tile's
  // loads may be in the stages already); otherwise the stage buffers, free
  // once the loop is done (every load was consumed).
  Value epilogue = tiles ? addIndex(rewriter, loc, region, epilogueOffset)
                         : region;
  int64_t epilogueRoom = tiles ? epilogueBytes : numStages * stageBytes;
  if (!tmaStores.empty() &&
      llvm::all_of(tmaStores, [&](auto &store) {
        return store.second.panelBytes() <= epilogueRoom;
      })) {
    for (auto &[copy, box] : tmaStores)
      storeThroughTma(rewriter, copy, box, *getStorage(copy.getSource()),
                      epilogue,
                      std::min(box.panels(), epilogueRoom / box.panelBytes()));
    // Thread 0 waits until its stores have read shared memory before the
    // block may exit.
    rewriter.setInsertionPoint(kernelBody.getTerminator());
    scf::IfOp::create(rewriter, loc, isLeader, [&](OpBuilder &b, Location l) {
      NVVM::CpAsyncBulkWaitGroupOp::create(b, l, 0, b.getUnitAttr());
      scf::YieldOp::create(b, l);
    });
  } else if (epilogueRoom > 0) {
    for (GemmOp gemm : wgmmas)
      stageEpilogue(rewriter, loop, gemm.getC(), smemBase, epilogue,
                    epilogueRoom);
  }

  addProducerWarpgroup(rewriter, loop, ring, firstOriginal, wgmmas);
  return true;
}
