//===- Threads.cpp - The threads of a CPU block ---------------------------===//
//
// A CPU block runs on one host thread: tile ops are loop nests over whole
// tiles, executed once per block. Thread-level code (gpu.thread_id, block
// barriers, and the warp votes, shuffles, matches and block reductions of
// NVVM) names the block's threads; here each block gets them back, before
// tile-lower-ops:
//
// - the kernel body is cut at its collectives (tile ops, barriers, votes,
//   shuffles, matches, block reductions, activemask); the per-thread code
//   between two cuts runs in a loop over the block's threads, one thread
//   after another
//   (barriers become the cuts themselves: every thread has finished the
//   code before one when the code after it starts);
// - a collective with a result reads every thread's operands from a
//   per-thread array, computes each thread's result the way the hardware
//   does (lanes of 32-thread warps, partial last warp included) and leaves
//   it in another array that the code after it reads;
// - values computed by one thread loop and used by a later one go through
//   per-thread arrays too, and local buffers that hold per-thread values
//   get one copy per thread.
//
// Pure code that does not depend on the thread stays outside the loops, so
// tile ops keep their block-level operands. What cannot be serialized so is
// reported at its op: a collective under control flow that differs between
// threads, a tile op or loop bound using a per-thread value, thread-level
// ops the CPU has no meaning for.
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"
#include "tile/Conversion/TileToCPU/TileToCPU.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::cpu;

namespace {


/// NVVM's activemask intrinsic (TileLang's T.activemask).
bool isActiveMask(Operation *op) {
  auto call = dyn_cast<LLVM::CallIntrinsicOp>(op);
  return call && call.getIntrin() == "llvm.nvvm.activemask";
}

/// Ops that every thread of a block (or of a warp) executes together.
bool isCollective(Operation *op) {
  return isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::BarrierOp,
             NVVM::SyncWarpOp, NVVM::VoteSyncOp, NVVM::ShflOp,
             NVVM::MatchSyncOp>(op) ||
         isActiveMask(op);
}

bool isThreadLevel(Operation *op) {
  return isa<gpu::ThreadIdOp>(op) || isCollective(op);
}

bool isTileOp(Operation *op) {
  return isa_and_nonnull<TileDialect>(op->getDialect());
}

/// An atomic on one element (a scalar, no region) outside the tile ops of a
/// kernel: each thread that reaches it updates the element.
bool isElementAtomicOfThreads(Operation *op) {
  if (!isa<AtomicAddOp, AtomicMaxOp, AtomicMinOp>(op) || op->hasAttr("sizes") ||
      isa<MemRefType>(op->getOperands().back().getType()))
    return false;
  for (Operation *p = op->getParentOp(); p && !isa<KernelOp>(p);
       p = p->getParentOp())
    if (isTileOp(p))
      return false;
  return true;
}

/// Tile ops, collectives, and ops holding either: they run once per block.
bool isBlockLevel(Operation *op) {
  if (isTileOp(op) || isCollective(op))
    return true;
  return op->walk([](Operation *inner) {
             return isTileOp(inner) || isCollective(inner)
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           })
      .wasInterrupted();
}

class ThreadSerializer {
public:
  ThreadSerializer(RewriterBase &rewriter, KernelOp kernel)
      : rw(rewriter), kernel(kernel),
        threads(kernel.getThreadsAttr().getInt()) {}

  LogicalResult run();

private:
  // Analysis.
  void scalarizeLocalFills();
  void scalarizeElementAtomics();
  void findPerThreadValues();
  bool isLocalBuffer(Value v) const {
    return v.getDefiningOp<AllocLocalOp>() != nullptr;
  }
  bool dependsOnThread(Operation *op) const;
  bool usesAny(Operation *op, const DenseSet<Operation *> &defs) const;
  bool usesLoopValue(Operation *op) const;

  // Transformation.
  LogicalResult serializeBlock(Block &block);
  void flush(SmallVectorImpl<Operation *> &segment, Operation *before);
  LogicalResult expandCollective(Operation *op);
  LogicalResult reloadPerThreadValues();
  LogicalResult expandPerThreadLocals();

  // Helpers.
  Value constIdx(int64_t v) { return indexConst(rw, kernel.getLoc(), v); }
  Value allocScratch(Type elt, Location loc);
  FailureOr<Value> scratchOf(Value v);
  FailureOr<Value> laneValue(Value v, Value lane, Location loc);
  scf::ForOp enclosingThreadLoop(Operation *op) const;

  RewriterBase &rw;
  KernelOp kernel;
  int64_t threads;
  DenseSet<Value> perThread;         // values that differ between threads
  DenseSet<Value> perThreadLocals;   // local buffers with a copy per thread
  llvm::SetVector<Operation *> threadLoops;
  DenseMap<Value, Value> scratch;    // per-thread value -> memref<T x type>
  // The results of collectives: a placeholder each, standing for the
  // thread's element of its result array(s) until the reloads replace it.
  DenseMap<Value, SmallVector<Value, 2>> collectiveResults;
};

/// Whether `op` computes something per thread: it reads the thread index,
/// a per-thread value or a per-thread local buffer (in its regions too).
bool ThreadSerializer::dependsOnThread(Operation *op) const {
  return op
      ->walk([&](Operation *inner) {
        if (isa<gpu::ThreadIdOp>(inner))
          return WalkResult::interrupt();
        for (Value v : inner->getOperands())
          if (perThread.contains(v) || perThreadLocals.contains(v))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether `op` reads a value that an earlier thread loop computed.
bool ThreadSerializer::usesLoopValue(Operation *op) const {
  return op
      ->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (Operation *def = v.getDefiningOp();
              def && !op->isAncestor(def) && enclosingThreadLoop(def))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

bool ThreadSerializer::usesAny(Operation *op,
                               const DenseSet<Operation *> &defs) const {
  return op
      ->walk([&](Operation *inner) {
        for (Value v : inner->getOperands())
          if (Operation *def = v.getDefiningOp(); def && defs.contains(def))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Fills of local buffers become element stores, so that a buffer that
/// holds a value per thread (a T.clear'ed accumulator) is filled in each
/// thread's copy.
void ThreadSerializer::scalarizeLocalFills() {
  SmallVector<Operation *> fills;
  kernel.walk([&](Operation *op) {
    if (isa<FillOp, ClearOp>(op) && isLocalBuffer(op->getOperand(0)))
      fills.push_back(op);
  });
  for (Operation *op : fills) {
    rw.setInsertionPoint(op);
    Value buffer = op->getOperand(0);
    Value value =
        isa<FillOp>(op)
            ? cast<FillOp>(op).getValue()
            : zeroOf(rw, op->getLoc(),
                     cast<MemRefType>(buffer.getType()).getElementType());
    fillBuffer(rw, op->getLoc(), buffer, value);
    rw.eraseOp(op);
  }
}

/// Atomics on one element in thread-level code (outside tile ops) run once
/// per thread that reaches them: they become memref.atomic_rmw, which the
/// thread loops repeat per thread.
void ThreadSerializer::scalarizeElementAtomics() {
  SmallVector<Operation *> atomics;
  kernel.walk([&](Operation *op) {
    if (isElementAtomicOfThreads(op))
      atomics.push_back(op);
  });
  for (Operation *op : atomics) {
    rw.setInsertionPoint(op);
    using Parts = std::pair<SmallVector<OpFoldResult>, Value>;
    Parts parts =
        TypeSwitch<Operation *, Parts>(op)
            .Case<AtomicAddOp, AtomicMaxOp, AtomicMinOp>([](auto atomic) {
              return Parts(atomic.getMixedOffsets(), atomic.getValue());
            });
    SmallVector<Value> idx =
        getValueOrCreateConstantIndexOp(rw, op->getLoc(), parts.first);
    emitAtomicUpdate(rw, op->getLoc(), op, parts.second, idx);
    rw.eraseOp(op);
  }
}

/// A fixed point: results of ops that read per-thread values (or the thread
/// index, or per-thread locals) are per-thread; local buffers stored
/// per-thread values, or stored under per-thread control, are per-thread.
void ThreadSerializer::findPerThreadValues() {
  bool changed = true;
  auto underPerThreadControl = [&](Operation *op) {
    for (Operation *p = op->getParentOp(); p && p != kernel;
         p = p->getParentOp())
      for (Value v : p->getOperands())
        if (perThread.contains(v))
          return true;
    return false;
  };
  while (changed) {
    changed = false;
    kernel.walk([&](Operation *op) {
      if (op == kernel)
        return;
      if (auto store = dyn_cast<memref::StoreOp>(op);
          store && isLocalBuffer(store.getMemRef()) &&
          (perThread.contains(store.getValueToStore()) ||
           llvm::any_of(store.getIndices(),
                        [&](Value v) { return perThread.contains(v); }) ||
           underPerThreadControl(op)))
        changed |= perThreadLocals.insert(store.getMemRef()).second;
      bool dep = isThreadLevel(op) && op->getNumResults() != 0;
      if (!dep && !isTileOp(op))
        dep = dependsOnThread(op);
      if (!dep)
        return;
      for (Value r : op->getResults())
        changed |= perThread.insert(r).second;
    });
  }
}

scf::ForOp ThreadSerializer::enclosingThreadLoop(Operation *op) const {
  for (Operation *p = op->getParentOp(); p && p != kernel;
       p = p->getParentOp())
    if (threadLoops.contains(p))
      return cast<scf::ForOp>(p);
  return {};
}

/// Moves `segment` (in order) into a loop over the block's threads placed
/// before `before`.
void ThreadSerializer::flush(SmallVectorImpl<Operation *> &segment,
                             Operation *before) {
  if (segment.empty())
    return;
  Location loc = segment.front()->getLoc();
  rw.setInsertionPoint(before);
  auto loop = scf::ForOp::create(rw, loc, constIdx(0), constIdx(threads),
                                 constIdx(1));
  Operation *yield = loop.getBody()->getTerminator();
  for (Operation *op : segment)
    op->moveBefore(yield);
  threadLoops.insert(loop);
  segment.clear();
}

LogicalResult ThreadSerializer::serializeBlock(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  SmallVector<Operation *> segment;
  DenseSet<Operation *> inSegment;
  for (Operation *op : ops) {
    if (isa<gpu::ThreadIdOp>(op))
      continue; // each loop reads its own index
    if (isBlockLevel(op)) {
      flush(segment, op);
      inSegment.clear();
      if (isCollective(op)) {
        if (failed(expandCollective(op)))
          return failure();
        continue;
      }
      if (isTileOp(op) || op->getNumRegions() == 0)
        continue;
      // Control flow around tile ops or collectives: the same for every
      // thread, its regions cut in turn.
      if (llvm::any_of(op->getOperands(),
                       [&](Value v) { return perThread.contains(v); }))
        return op->emitOpError()
               << "holds tile ops or barriers and warp collectives under a "
                  "condition or bound that differs between the block's "
                  "threads; the cpu target runs a block's threads one after "
                  "another and cannot run it";
      for (Region &region : op->getRegions())
        for (Block &inner : region)
          if (failed(serializeBlock(inner)))
            return failure();
      continue;
    }
    // Pure code that is the same in every thread runs once, in place; a
    // read that no per-thread code of the segment precedes too.
    bool perThreadCode =
        dependsOnThread(op) || usesAny(op, inSegment) || usesLoopValue(op);
    bool runsOnce = !perThreadCode &&
                    (isMemoryEffectFree(op) ||
                     (segment.empty() && isa<memref::LoadOp>(op)));
    if (runsOnce)
      continue;
    segment.push_back(op);
    inSegment.insert(op);
  }
  flush(segment, block.getTerminator());
  return success();
}

Value ThreadSerializer::allocScratch(Type elt, Location loc) {
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPointToStart(&kernel.getBodyBlock());
  auto type = MemRefType::get({threads}, elt, MemRefLayoutAttrInterface{},
                              ScopeAttr::get(rw.getContext(), Scope::Local));
  return AllocLocalOp::create(rw, loc, type);
}

/// The per-thread array holding `v` (a value of a thread loop), created on
/// first use: stored right after `v` is computed.
FailureOr<Value> ThreadSerializer::scratchOf(Value v) {
  if (auto it = scratch.find(v); it != scratch.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  scf::ForOp loop = def ? enclosingThreadLoop(def) : scf::ForOp();
  if (!loop)
    return failure();
  if (!v.getType().isIntOrIndexOrFloat())
    return failure();
  Value buf = allocScratch(v.getType(), v.getLoc());
  OpBuilder::InsertionGuard guard(rw);
  rw.setInsertionPointAfter(def);
  memref::StoreOp::create(rw, v.getLoc(), v, buf, loop.getInductionVar());
  scratch[v] = buf;
  return buf;
}

/// Thread `lane`'s value of `v`, in block-level code.
FailureOr<Value> ThreadSerializer::laneValue(Value v, Value lane,
                                             Location loc) {
  if (v.getDefiningOp<gpu::ThreadIdOp>())
    return lane;
  if (auto it = collectiveResults.find(v); it != collectiveResults.end()) {
    if (it->second.size() != 1)
      return failure();
    return memref::LoadOp::create(rw, loc, it->second[0], lane).getResult();
  }
  // Values of thread loops (per-thread ones, and uniform ones that a
  // loop computed) are read from their per-thread arrays.
  Operation *def = v.getDefiningOp();
  if (!def || !enclosingThreadLoop(def))
    return v;
  FailureOr<Value> buf = scratchOf(v);
  if (failed(buf))
    return failure();
  return memref::LoadOp::create(rw, loc, *buf, lane).getResult();
}

} // namespace

//===----------------------------------------------------------------------===//
// Collectives (their exchanges: CollectivesCPU.cpp)
//===----------------------------------------------------------------------===//

/// Replaces collective `op` (at block level, after the thread loop that
/// computed its operands) by the exchange the hardware performs: for each
/// thread t, its result from every lane's operands, into arrays that later
/// thread loops read.
LogicalResult ThreadSerializer::expandCollective(Operation *op) {
  Location loc = op->getLoc();
  if (auto bar = dyn_cast<NVVM::BarrierOp>(op); bar && !bar.getReductionOp() &&
                                                !bar.getBarrierId() &&
                                                !bar.getNumberOfThreads()) {
    rw.eraseOp(op);
    return success();
  }
  if (isa<gpu::BarrierOp, NVVM::Barrier0Op, NVVM::SyncWarpOp>(op)) {
    rw.eraseOp(op);
    return success();
  }
  if (auto bar = dyn_cast<NVVM::BarrierOp>(op);
      bar && (bar.getBarrierId() || bar.getNumberOfThreads()))
    return op->emitOpError()
           << "is a named barrier or one of a subset of the block's threads, "
              "which the cpu target cannot run (it runs a block's threads "
              "one after another)";
  if (auto shfl = dyn_cast<NVVM::ShflOp>(op);
      shfl && shfl.getReturnValueAndIsValid())
    return op->emitOpError() << "returns a validity flag, which the cpu "
                                "target's shuffles do not compute";

  rw.setInsertionPoint(op);
  SmallVector<Value, 2> outs;
  for (Type t : op->getResultTypes()) {
    if (auto st = dyn_cast<LLVM::LLVMStructType>(t)) {
      for (Type e : st.getBody())
        outs.push_back(allocScratch(e, loc));
    } else {
      outs.push_back(allocScratch(t, loc));
    }
  }
  rw.setInsertionPoint(op);
  auto loop =
      scf::ForOp::create(rw, loc, constIdx(0), constIdx(threads), constIdx(1));
  rw.setInsertionPoint(loop.getBody()->getTerminator());
  Ints c{rw, loc};
  Value t = loop.getInductionVar();
  Value tLane = arith::RemUIOp::create(rw, loc, t, c.idx(kLanes));
  Value warp0 = arith::SubIOp::create(rw, loc, t, tLane);
  Value warpEnd = arith::MinUIOp::create(
      rw, loc, arith::AddIOp::create(rw, loc, warp0, c.idx(kLanes)),
      c.idx(threads));
  auto laneOf = [&](Value v, Value lane) { return laneValue(v, lane, loc); };
  LaneLoop ll{rw, loc, c, threads, t, tLane, warp0, warpEnd, laneOf};
  SmallVector<Value, 2> results;
  if (auto vote = dyn_cast<NVVM::VoteSyncOp>(op))
    results = expandVote(vote, ll);
  else if (auto match = dyn_cast<NVVM::MatchSyncOp>(op))
    results = expandMatch(match, ll);
  else if (auto shfl = dyn_cast<NVVM::ShflOp>(op))
    results = expandShfl(shfl, ll);
  else if (isActiveMask(op))
    results = expandActiveMask(ll);
  else if (auto bar = dyn_cast<NVVM::BarrierOp>(op))
    results = expandBarrierReduction(bar, ll);
  bool bad = ll.bad;
  if (bad)
    return op->emitOpError()
           << "has an operand that the cpu target cannot pass between "
              "threads (a value that is not a scalar)";
  for (auto [v, buf] : llvm::zip(results, outs))
    memref::StoreOp::create(rw, loc, v, buf, t);

  // Later thread loops read the thread's element (reloadPerThreadValues).
  rw.setInsertionPoint(op);
  Value result = op->getResult(0);
  auto placeholder = UnrealizedConversionCastOp::create(
      rw, loc, result.getType(), ValueRange{});
  rw.replaceAllUsesWith(result, placeholder.getResult(0));
  perThread.insert(placeholder.getResult(0));
  collectiveResults[placeholder.getResult(0)] = outs;
  rw.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Values between thread loops, per-thread locals
//===----------------------------------------------------------------------===//

/// In each thread loop, values of other thread loops, of collectives and
/// the thread index become the loop's thread's element (or index).
LogicalResult ThreadSerializer::reloadPerThreadValues() {
  for (Operation *loopOp : threadLoops) {
    auto loop = cast<scf::ForOp>(loopOp);
    Value t = loop.getInductionVar();
    DenseMap<Value, Value> reloaded;
    SmallVector<std::pair<OpOperand *, Value>> updates;
    bool failedOnce = false;
    loop.getBody()->walk([&](Operation *op) {
      for (OpOperand &use : op->getOpOperands()) {
        Value v = use.get();
        if (loop->isAncestor(v.getParentRegion()->getParentOp()))
          continue; // defined in this loop
        if (auto it = reloaded.find(v); it != reloaded.end()) {
          updates.push_back({&use, it->second});
          continue;
        }
        Value r;
        OpBuilder::InsertionGuard guard(rw);
        rw.setInsertionPointToStart(loop.getBody());
        if (auto it = collectiveResults.find(v);
                   it != collectiveResults.end()) {
          SmallVector<Value> parts;
          for (Value buf : it->second)
            parts.push_back(memref::LoadOp::create(rw, v.getLoc(), buf, t));
          if (auto st = dyn_cast<LLVM::LLVMStructType>(v.getType())) {
            r = LLVM::UndefOp::create(rw, v.getLoc(), st);
            for (auto [i, p] : llvm::enumerate(parts))
              r = LLVM::InsertValueOp::create(rw, v.getLoc(), r, p, i);
          } else {
            r = parts[0];
          }
        } else if (Operation *def = v.getDefiningOp();
                   def && enclosingThreadLoop(def)) {
          FailureOr<Value> buf = scratchOf(v);
          if (failed(buf)) {
            op->emitOpError() << "uses a value of another thread loop that "
                                 "the cpu target cannot keep per thread";
            failedOnce = true;
            continue;
          }
          r = memref::LoadOp::create(rw, v.getLoc(), *buf, t);
        } else {
          continue; // the same in every thread
        }
        reloaded[v] = r;
        updates.push_back({&use, r});
      }
    });
    if (failedOnce)
      return failure();
    for (auto [use, r] : updates)
      rw.modifyOpInPlace(use->getOwner(), [&, use = use, r = r] { use->set(r); });
  }
  // A value a thread loop computed from nothing per-thread (a load of a
  // uniform address, arithmetic on block values) is the same in every
  // thread: block-level code reads thread 0's.
  SmallVector<OpOperand *> uniformUses;
  kernel.walk([&](Operation *op) {
    if (enclosingThreadLoop(op) || threadLoops.contains(op))
      return;
    for (OpOperand &use : op->getOpOperands()) {
      Value v = use.get();
      Operation *def = v.getDefiningOp();
      if (def && !isa<gpu::ThreadIdOp>(def) && enclosingThreadLoop(def) &&
          !perThread.contains(v) && !collectiveResults.count(v) &&
          v.getType().isIntOrIndexOrFloat())
        uniformUses.push_back(&use);
    }
  });
  for (OpOperand *use : uniformUses) {
    FailureOr<Value> buf = scratchOf(use->get());
    if (failed(buf))
      continue;
    rw.setInsertionPoint(use->getOwner());
    Value first = memref::LoadOp::create(rw, use->get().getLoc(), *buf,
                                         ValueRange{constIdx(0)});
    rw.modifyOpInPlace(use->getOwner(), [&] { use->set(first); });
  }
  // Whatever else still reads a per-thread value is block-level code.
  WalkResult walk = kernel.walk([&](Operation *op) {
    if (enclosingThreadLoop(op) || threadLoops.contains(op))
      return WalkResult::advance();
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      bool perThreadValue = (def && (isa<gpu::ThreadIdOp>(def) ||
                                     enclosingThreadLoop(def))) ||
                            collectiveResults.count(v);
      if (!perThreadValue)
        continue;
      op->emitOpError()
          << "runs once per block on the cpu target but uses a value that "
             "differs between the block's threads";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Local buffers with per-thread contents get a copy per thread: a leading
/// dimension indexed by the thread loop's thread.
LogicalResult ThreadSerializer::expandPerThreadLocals() {
  for (Value buf : perThreadLocals) {
    auto alloc = buf.getDefiningOp<AllocLocalOp>();
    MemRefType type = alloc.getType();
    SmallVector<int64_t> shape{threads};
    llvm::append_range(shape, type.getShape());
    auto wide = MemRefType::get(shape, type.getElementType(),
                                MemRefLayoutAttrInterface{},
                                type.getMemorySpace());
    for (Operation *user : buf.getUsers()) {
      scf::ForOp loop = enclosingThreadLoop(user);
      if (!loop || !isa<memref::LoadOp, memref::StoreOp>(user))
        return user->emitOpError()
               << "uses a local buffer that holds a value per thread "
                  "outside per-thread code; the cpu target cannot give it "
                  "a copy per thread";
    }
    rw.setInsertionPoint(alloc);
    Value copy = AllocLocalOp::create(rw, alloc.getLoc(), wide);
    for (Operation *user : llvm::make_early_inc_range(buf.getUsers())) {
      Value t = enclosingThreadLoop(user).getInductionVar();
      rw.setInsertionPoint(user);
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        SmallVector<Value> idx{t};
        llvm::append_range(idx, load.getIndices());
        rw.replaceOpWithNewOp<memref::LoadOp>(load, copy, idx);
      } else {
        auto store = cast<memref::StoreOp>(user);
        SmallVector<Value> idx{t};
        llvm::append_range(idx, store.getIndices());
        rw.replaceOpWithNewOp<memref::StoreOp>(store, store.getValueToStore(),
                                               copy, idx);
      }
    }
    rw.eraseOp(alloc);
  }
  return success();
}

LogicalResult ThreadSerializer::run() {
  bool any = false;
  WalkResult walk = kernel.walk([&](Operation *op) {
    if (auto tid = dyn_cast<gpu::ThreadIdOp>(op);
        tid && tid.getDimension() != gpu::Dimension::x) {
      op->emitOpError() << "names a thread dimension other than x; the "
                           "cpu target numbers a block's threads along x";
      return WalkResult::interrupt();
    }
    // A thread that waits on an mbarrier's phase before the others have
    // arrived would wait forever with the threads run one after another.
    if (op->getDialect() && op->getDialect()->getNamespace() == "nvgpu") {
      op->emitOpError()
          << "uses an mbarrier (T.alloc_barrier and its arrive and wait "
             "calls); the cpu target runs a block's threads one after "
             "another, so a wait for the other threads' arrivals cannot "
             "complete: compile for an NVIDIA target";
      return WalkResult::interrupt();
    }
    any |= isThreadLevel(op) || isElementAtomicOfThreads(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!any)
    return success();
  scalarizeLocalFills();
  scalarizeElementAtomics();
  findPerThreadValues();
  if (failed(serializeBlock(kernel.getBodyBlock())) ||
      failed(reloadPerThreadValues()) || failed(expandPerThreadLocals()))
    return failure();
  // The thread index is each thread loop's own.
  SmallVector<gpu::ThreadIdOp> tids;
  kernel.walk([&](gpu::ThreadIdOp tid) { tids.push_back(tid); });
  for (gpu::ThreadIdOp tid : tids) {
    for (OpOperand &use : llvm::make_early_inc_range(tid->getUses())) {
      Operation *user = use.getOwner();
      scf::ForOp loop = enclosingThreadLoop(user);
      if (!loop)
        return user->emitOpError()
               << "runs once per block on the cpu target but reads the "
                  "thread index";
      rw.modifyOpInPlace(user, [&] { use.set(loop.getInductionVar()); });
    }
    rw.eraseOp(tid);
  }
  for (auto &[v, bufs] : collectiveResults)
    if (v.use_empty())
      rw.eraseOp(v.getDefiningOp());
  return success();
}

LogicalResult mlir::tile::serializeThreadsForCPU(RewriterBase &rewriter,
                                                 KernelOp kernel) {
  return ThreadSerializer(rewriter, kernel).run();
}
