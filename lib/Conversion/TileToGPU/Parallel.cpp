//===- Parallel.cpp - tile.parallel on GPUs -------------------------------===//
//
// A tile.parallel over a fragment lets each thread run the body for the
// elements it holds (the driver fragment's registers, unrolled); fragments
// the body reads at other elements are read from their shared scratch
// copies, or from the thread's own registers where it holds them. A loop
// that touches no fragment at its indices spreads its iterations over the
// block's threads.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/TileToGPU/Plans.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <functional>

#define DEBUG_TYPE "tile-lower-ops"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

namespace {

/// The fragment `access` (a memref.load/store) touches at exactly `ivs`.
Value fragmentAtIvs(Operation *access, ValueRange ivs) {
  Value memref;
  ValueRange indices;
  if (auto load = dyn_cast<memref::LoadOp>(access)) {
    memref = load.getMemRef();
    indices = load.getIndices();
  } else if (auto store = dyn_cast<memref::StoreOp>(access)) {
    memref = store.getMemRef();
    indices = store.getIndices();
  } else {
    return nullptr;
  }
  std::optional<Storage> s = getStorage(memref);
  if (!s || s->scope != Scope::Fragment)
    return nullptr;
  if (indices.size() != ivs.size() ||
      !llvm::all_of(llvm::zip(indices, ivs),
                    [](auto p) { return std::get<0>(p) == std::get<1>(p); }))
    return nullptr;
  return memref;
}

/// For a load of `fragment` at loop indices `positions` (the load's i-th
/// index is the loop's index positions[i]) in a loop driven by a fragment of
/// `driver` layout with `driverRegs` registers: the fragment's register
/// that each driver register's element reads, when every thread holds it
/// there itself. Checked by enumerating the slots.
std::optional<SmallVector<int64_t>>
projectedRegisters(FragmentLayoutAttr driver, int64_t driverRegs,
                   FragmentLayoutAttr fragment, ArrayRef<int64_t> positions) {
  int64_t threads = driver.getThreads();
  int64_t n = numElements(driver.getShape());
  if (fragment.getThreads() != threads || !fragment.getInverse() ||
      threads * driverRegs > (int64_t(1) << 18))
    return std::nullopt;
  bool full = (n * driver.getReplicate()) % threads == 0;
  // A slot of `fragment` that holds nothing (a fragment smaller than the
  // block: registerHoldsElement) is never written, though the inverse map
  // names an element there too.
  int64_t fragmentElements = numElements(fragment.getShape());
  bool fragmentFull =
      (fragmentElements * fragment.getReplicate()) % threads == 0;
  SmallVector<int64_t> regs(driverRegs, -1);
  for (int64_t t = 0; t < threads; ++t) {
    for (int64_t r = 0; r < driverRegs; ++r) {
      if (!full && r * threads + t >= n)
        continue; // the slot holds nothing (registerHoldsElement)
      SmallVector<int64_t> e = driver.applyInverse(t, r);
      SmallVector<int64_t> at;
      for (int64_t p : positions)
        at.push_back(e[p]);
      int64_t reg = fragment.apply(at).second;
      if (reg < 0 || (regs[r] != -1 && regs[r] != reg) ||
          (!fragmentFull && reg * threads + t >= fragmentElements) ||
          fragment.applyInverse(t, reg) != at)
        return std::nullopt;
      regs[r] = reg;
    }
  }
  return regs;
}

} // namespace

ParallelPlan tilegpu::planParallel(ParallelOp op) {
  ParallelPlan plan;
  ValueRange ivs = op.getBodyBlock().getArguments();
  ArrayRef<int64_t> extents = op.getExtents();
  // The driver: the first fragment written (else read) at the loop indices.
  for (bool wantStore : {true, false}) {
    op.walk([&](Operation *inner) {
      if (plan.driver || (wantStore != isa<memref::StoreOp>(inner)))
        return;
      if (Value f = fragmentAtIvs(inner, ivs)) {
        std::optional<Storage> s = getStorage(f);
        if (s->layout.getShape() == extents) {
          plan.driver = f;
          plan.layout = s->layout;
        }
      }
    });
  }
  op.walk([&](Operation *inner) {
    for (Value operand : inner->getOperands()) {
      std::optional<Storage> s = getStorage(operand);
      if (!s || s->scope != Scope::Fragment)
        continue;
      bool own = fragmentAtIvs(inner, ivs) && s->layout == plan.layout &&
                 s->layout.getShape() == extents;
      if (own)
        continue;
      auto load = dyn_cast<memref::LoadOp>(inner);
      auto store = dyn_cast<memref::StoreOp>(inner);
      if (!load && !(store && store.getMemRef() == operand)) {
        plan.supported = false;
        continue;
      }
      // At loop indices only: maybe held by the thread itself.
      ValueRange indices = load ? load.getIndices() : store.getIndices();
      SmallVector<int64_t> positions;
      for (Value index : indices) {
        auto arg = dyn_cast<BlockArgument>(index);
        if (!arg || arg.getOwner() != &op.getBodyBlock())
          break;
        positions.push_back(arg.getArgNumber());
      }
      // A store writes each element from one element of the loop only (the
      // loop dimensions it leaves out have extent 1), and every copy of it:
      // as many elements and copies as the driver, so that the driver's
      // slots, each mapped to a slot of the same thread, fill them all.
      auto oneToOne = [&] {
        return llvm::all_of(llvm::seq<int64_t>(0, extents.size()),
                            [&](int64_t d) {
                              return extents[d] == 1 ||
                                     llvm::is_contained(positions, d);
                            }) &&
               numElements(s->layout.getShape()) ==
                   numElements(plan.layout.getShape()) &&
               s->layout.getReplicate() == plan.layout.getReplicate();
      };
      // A reducer's replicas each hold a partial (tile.finalize_reducer
      // combines them): each thread updates its own, however many of its
      // iterations meet in one of its registers.
      if (plan.layout && positions.size() == indices.size() &&
          (load || oneToOne() || isReducer(operand)))
        if (std::optional<SmallVector<int64_t>> regs = projectedRegisters(
                plan.layout, getStorage(plan.driver)->numRegisters, s->layout,
                positions)) {
          plan.projected[inner] = std::move(*regs);
          continue;
        }
      if (store)
        plan.supported = false;
      else
        plan.staged.insert(operand);
    }
  });
  // A fragment read both ways is read from its scratch copy throughout.
  // A fragment written at projected registers must not also be read from
  // a scratch copy.
  for (auto it = plan.projected.begin(); it != plan.projected.end();) {
    auto current = it++;
    if (auto store = dyn_cast<memref::StoreOp>(current->first)) {
      if (plan.staged.contains(store.getMemRef()))
        plan.supported = false;
      continue;
    }
    if (plan.staged.contains(cast<memref::LoadOp>(current->first).getMemRef()))
      plan.projected.erase(current);
  }
  return plan;
}

namespace {

/// The body of a tile.parallel cloned for one element (`indices`; `reg`:
/// the driver's register that holds it), fragment accesses rewritten,
/// nested regions (an `if` in the loop) included.
class ElementBody {
public:
  ElementBody(ParallelOp op, const ParallelPlan &plan,
              const DenseMap<Value, Value> &stagedViews)
      : body(op.getBodyBlock()), ivs(body.getArguments()), plan(plan),
        stagedViews(stagedViews) {}

  void clone(OpBuilder &b, ValueRange indices, std::optional<int64_t> reg) {
    IRMapping mapping;
    mapping.map(ivs, indices);
    cloneOps(b, body, /*top=*/true, reg, mapping);
  }

private:
  /// The load or store `inner` rewritten as an access of registers or of a
  /// staged copy; false when it is not one of those.
  bool cloneAccess(OpBuilder &b, Operation &inner, std::optional<int64_t> reg,
                   IRMapping &mapping) {
    if (auto store = dyn_cast<memref::StoreOp>(inner);
        store && reg && plan.projected.count(store)) {
      Value regs = getStorage(store.getMemRef())->memref;
      memref::StoreOp::create(
          b, store.getLoc(), mapping.lookupOrDefault(store.getValue()), regs,
          ValueRange{indexConst(b, store.getLoc(),
                                plan.projected.lookup(store)[*reg])});
      return true;
    }
    if (auto load = dyn_cast<memref::LoadOp>(inner);
        load && reg && plan.projected.count(load)) {
      Value regs = getStorage(load.getMemRef())->memref;
      Value v = memref::LoadOp::create(
          b, load.getLoc(), regs,
          ValueRange{
              indexConst(b, load.getLoc(), plan.projected.lookup(load)[*reg])});
      mapping.map(load.getResult(), v);
      return true;
    }
    if (auto load = dyn_cast<memref::LoadOp>(inner)) {
      auto staged = stagedViews.find(load.getMemRef());
      if (staged != stagedViews.end()) {
        SmallVector<Value> idx;
        for (Value i : load.getIndices())
          idx.push_back(mapping.lookupOrDefault(i));
        Value v = memref::LoadOp::create(b, load.getLoc(), staged->second, idx);
        mapping.map(load.getResult(), v);
        return true;
      }
    }
    if (!reg)
      return false;
    if (auto load = dyn_cast<memref::LoadOp>(inner);
        load && fragmentAtIvs(load, ivs)) {
      Value regs = getStorage(load.getMemRef())->memref;
      Value v = memref::LoadOp::create(
          b, load.getLoc(), regs,
          ValueRange{indexConst(b, load.getLoc(), *reg)});
      mapping.map(load.getResult(), v);
      return true;
    }
    if (auto store = dyn_cast<memref::StoreOp>(inner);
        store && fragmentAtIvs(store, ivs)) {
      Value regs = getStorage(store.getMemRef())->memref;
      memref::StoreOp::create(b, store.getLoc(),
                              mapping.lookupOrDefault(store.getValue()), regs,
                              ValueRange{indexConst(b, store.getLoc(), *reg)});
      return true;
    }
    return false;
  }

  void cloneOps(OpBuilder &b, Block &block, bool top,
                std::optional<int64_t> reg, IRMapping &mapping) {
    for (Operation &inner : block) {
      if (top && &inner == block.getTerminator())
        break;
      if (cloneAccess(b, inner, reg, mapping))
        continue;
      if (inner.getNumRegions() == 0) {
        b.clone(inner, mapping);
        continue;
      }
      // (cloneWithoutRegions maps the results.)
      Operation *copy = b.cloneWithoutRegions(inner, mapping);
      for (auto [from, to] :
           llvm::zip(inner.getRegions(), copy->getRegions())) {
        for (Block &fromBlock : from) {
          Block *toBlock = new Block();
          to.push_back(toBlock);
          for (BlockArgument arg : fromBlock.getArguments())
            mapping.map(arg, toBlock->addArgument(arg.getType(), arg.getLoc()));
          OpBuilder nb = OpBuilder::atBlockEnd(toBlock);
          cloneOps(nb, fromBlock, /*top=*/false, reg, mapping);
        }
      }
    }
  }

  Block &body;
  ValueRange ivs;
  const ParallelPlan &plan;
  const DenseMap<Value, Value> &stagedViews;
};

struct ParallelLowering : public OpRewritePattern<ParallelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ParallelOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> extents = op.getExtents();
    ParallelPlan plan = planParallel(op);
    if (!plan.supported)
      return rewriter.notifyMatchFailure(op, "fragment access pattern");

    // Fragments read at other elements than the iteration's own: from their
    // shared copies.
    DenseMap<Value, Value> stagedViews;
    for (Value f : plan.staged) {
      Value view = stageToShared(rewriter, loc, f);
      if (!view)
        return rewriter.notifyMatchFailure(op, "fragment without scratch");
      stagedViews[f] = view;
    }

    bool writesShared = false;
    op.walk([&](memref::StoreOp store) {
      std::optional<Storage> s = getStorage(store.getMemRef());
      writesShared |= s && s->scope == Scope::Shared;
    });
    if (writesShared)
      barrier(rewriter, loc);

    ElementBody body(op, plan, stagedViews);
    if (plan.layout) {
      Value tid = threadId(rewriter, loc);
      int64_t regs = getStorage(plan.driver)->numRegisters;
      for (int64_t r = 0; r < regs; ++r) {
        SmallVector<Value> indices =
            indicesOfRegister(rewriter, loc, plan.layout, tid, r);
        Value holds = registerHoldsElement(rewriter, loc, plan.layout, tid, r);
        if (!holds) {
          body.clone(rewriter, indices, r);
          continue;
        }
        scf::IfOp::create(rewriter, loc, holds, [&](OpBuilder &b, Location l) {
          body.clone(b, indices, r);
          scf::YieldOp::create(b, l);
        });
      }
    } else {
      buildThreadStridedLoop(
          rewriter, loc, numElements(extents), getThreads(op),
          [&](OpBuilder &b, Location l, Value linear) {
            body.clone(b, delinearize(b, l, linear, extents), std::nullopt);
          });
    }
    if (writesShared)
      barrier(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateParallelToGPUPatterns(RewritePatternSet &patterns) {
  patterns.add<ParallelLowering>(patterns.getContext());
}
