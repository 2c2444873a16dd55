//===- InferLayouts.cpp - tile-infer-layouts ------------------------------===//
//
// Chooses the register layout of every fragment buffer: anchored at gemm
// accumulators, pinned by tile.annotate_layout, spread from those along
// copies, reductions and parallel loops; row-split for tiles reduced along
// their rows; cyclic otherwise. Reducers updated at the rows of parallel
// loops become fragments of the loops' row layout.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Target/TargetInfo.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "tile-infer-layouts"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEINFERLAYOUTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The layout a fragment's anchors require (gemm accumulators, pinned
/// layouts), null when it has none, or failure (reported).
FailureOr<FragmentLayoutAttr> anchorLayout(AllocFragmentOp alloc,
                                           const TargetInfo &target,
                                           int64_t threads) {
  FragmentLayoutAttr chosen;
  Operation *anchor = nullptr;
  // The users in program order (use lists are not), so that a conflict
  // names the earlier requirement first.
  SmallVector<Operation *> users;
  alloc->getParentOfType<KernelOp>().walk([&](Operation *op) {
    if (llvm::is_contained(op->getOperands(), alloc.getResult()))
      users.push_back(op);
  });
  for (Operation *user : users) {
    FragmentLayoutAttr candidate;
    if (auto pin = dyn_cast<AnnotateLayoutOp>(user)) {
      candidate = dyn_cast<FragmentLayoutAttr>(pin.getLayout());
    } else if ((isa<GemmOp>(user) &&
                cast<GemmOp>(user).getC() == alloc.getResult()) ||
               (isa<GemmSpOp>(user) &&
                cast<GemmSpOp>(user).getC() == alloc.getResult())) {
      std::string why;
      candidate = target.getAccumulatorLayout(user, why);
      if (!candidate) {
        if (why.empty())
          continue;
        return user->emitOpError() << why;
      }
    }
    if (!candidate)
      continue;
    if (candidate.getThreads() != threads)
      return user->emitOpError()
             << "needs a layout over " << candidate.getThreads()
             << " threads, but the kernel has " << threads;
    if (chosen && chosen != candidate) {
      InFlightDiagnostic diag = alloc.emitOpError()
                                << "has conflicting layouts: " << chosen
                                << " and " << candidate;
      diag.attachNote(anchor->getLoc()) << "first required here";
      diag.attachNote(user->getLoc()) << "then required here";
      return diag;
    }
    chosen = candidate;
    anchor = user;
  }
  return chosen;
}

/// The row-split layout of a tile reduced along its rows: 16 bytes of a
/// row per lane at a time where the row allows, and as many lanes per row
/// as divide it; rows of one warp first, then (tiles with fewer rows than
/// warps, such as one row a block) rows that span several warps, whose
/// reduction meets in shared memory after the shuffles.
FragmentLayoutAttr chooseRowSplitLayout(MemRefType type, int64_t threads) {
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  auto first = [&](int64_t maxLanes, int64_t minLanes) -> FragmentLayoutAttr {
    for (int64_t vec = std::max<int64_t>(1, 16 / bytes); vec >= 1; vec /= 2)
      for (int64_t lanes = maxLanes; lanes >= minLanes; lanes /= 2)
        if (FragmentLayoutAttr layout = getRowSplitLayout(
                type.getContext(), type.getDimSize(0), type.getDimSize(1),
                threads, lanes, vec))
          return layout;
    return nullptr;
  };
  if (FragmentLayoutAttr layout = first(32, 1))
    return layout;
  // The fewest warps a row that make whole rows: lanes from 64 up.
  for (int64_t lanes = 64; lanes <= threads; lanes *= 2)
    if (FragmentLayoutAttr layout = first(lanes, lanes))
      return layout;
  return nullptr;
}

/// Spreads anchored layouts to the fragments that have none, to a fixed
/// point, along the ops whose lowering then stays in registers:
/// - a whole-fragment tile.copy: both ends share a layout (the cast of an
///   accumulator to the gemm operand type keeps its layout);
/// - tile.reduce along the columns of an accumulator layout: the target
///   gets the accumulator's row layout (replicated over the row's threads);
/// - tile.parallel: the fragments accessed at the loop indices share the
///   layout of the loop's driver, and a fragment accessed at the first index
///   of a 2-D loop gets the driver's row layout.
/// A fragment keeps the first layout it gets; the lowering moves data
/// between fragments whose layouts differ through shared memory.
class Propagation {
public:
  explicit Propagation(DenseMap<Value, FragmentLayoutAttr> &layouts)
      : layouts(layouts) {}

  void run(KernelOp kernel) {
    do {
      changed = false;
      kernel.walk([&](Operation *op) {
        if (auto copy = dyn_cast<CopyOp>(op))
          visitCopy(copy);
        else if (auto reduce = dyn_cast<ReduceOp>(op))
          visitReduce(reduce);
        else if (auto loop = dyn_cast<ParallelOp>(op))
          visitParallel(loop);
      });
    } while (changed);
  }

private:
  bool isFragment(Value v) {
    return v.getDefiningOp<AllocFragmentOp>() != nullptr;
  }
  FragmentLayoutAttr get(Value v) { return layouts.lookup(v); }
  void offer(Value v, FragmentLayoutAttr layout) {
    if (!layout || !isFragment(v) || get(v) ||
        cast<MemRefType>(v.getType()).getShape() != layout.getShape())
      return;
    layouts[v] = layout;
    changed = true;
  }

  void visitCopy(CopyOp copy) {
    Value src = copy.getSource(), dst = copy.getTarget();
    if (!isFragment(src) || !isFragment(dst) ||
        cast<MemRefType>(src.getType()).getShape() !=
            ArrayRef<int64_t>(copy.getSourceSizes()) ||
        cast<MemRefType>(dst.getType()).getShape() !=
            ArrayRef<int64_t>(copy.getTargetSizes()))
      return;
    offer(dst, get(src));
    offer(src, get(dst));
  }

  void visitReduce(ReduceOp reduce) {
    FragmentLayoutAttr src = get(reduce.getSource());
    if (src && reduce.getDim() == 1)
      offer(reduce.getTarget(), getRowLayout(src));
  }

  void visitParallel(ParallelOp loop) {
    ValueRange ivs = loop.getBodyBlock().getArguments();
    ArrayRef<int64_t> extents = loop.getExtents();
    // Fragments accessed at all the loop indices (in order) and at the
    // first one alone; writes first, as the lowering picks its driver.
    SmallVector<Value> full, rows, columns;
    for (bool stores : {true, false}) {
      loop.walk([&](Operation *inner) {
        Value memref;
        ValueRange indices;
        if (auto load = dyn_cast<memref::LoadOp>(inner); load && !stores) {
          memref = load.getMemRef();
          indices = load.getIndices();
        } else if (auto store = dyn_cast<memref::StoreOp>(inner);
                   store && stores) {
          memref = store.getMemRef();
          indices = store.getIndices();
        }
        if (!memref || !isFragment(memref))
          return;
        auto shape = cast<MemRefType>(memref.getType()).getShape();
        if (llvm::equal(indices, ivs) && shape == extents)
          full.push_back(memref);
        else if (ivs.size() == 2 && indices.size() == 1 &&
                 indices[0] == ivs[0] && shape[0] == extents[0])
          rows.push_back(memref);
        else if (ivs.size() == 2 && extents[0] == 1 && indices.size() == 1 &&
                 indices[0] == ivs[1] && shape[0] == extents[1])
          columns.push_back(memref);
      });
    }
    FragmentLayoutAttr driver;
    for (Value f : full)
      if ((driver = get(f)))
        break;
    if (!driver)
      return;
    for (Value f : full)
      offer(f, driver);
    if (ivs.size() == 2)
      for (Value f : rows)
        offer(f, getRowLayout(driver));
    // A loop over the one row of a 1 x N tile: vectors indexed by the
    // column (TileLang's per-column accumulators) are that row.
    for (Value f : columns)
      offer(f, getUnitRowVectorLayout(driver));
  }

  DenseMap<Value, FragmentLayoutAttr> &layouts;
  bool changed = false;
};

/// A local buffer that tile.finalize_reducer combines.
bool isLocalReducer(Value buffer) {
  return buffer.getDefiningOp<AllocLocalOp>() && isReducer(buffer);
}

/// The fragment that `loop` follows, as the lowering picks it: the first
/// one it writes, else reads, at all its indices (in order); null if none.
Value loopDriver(ParallelOp loop) {
  ValueRange ivs = loop.getBodyBlock().getArguments();
  Value driver;
  for (bool stores : {true, false})
    loop.walk([&](Operation *inner) {
      auto load = dyn_cast<memref::LoadOp>(inner);
      auto store = dyn_cast<memref::StoreOp>(inner);
      if (driver || (stores ? !store : !load))
        return;
      Value memref = load ? load.getMemRef() : store.getMemRef();
      ValueRange indices = load ? load.getIndices() : store.getIndices();
      if (memref.getDefiningOp<AllocFragmentOp>() &&
          llvm::equal(indices, ivs) &&
          cast<MemRefType>(memref.getType()).getShape() == loop.getExtents())
        driver = memref;
    });
  return driver;
}

/// The driver of a 2-d `loop` that updates a reducer at its first index;
/// null otherwise.
Value reducerLoopDriver(ParallelOp loop) {
  ValueRange ivs = loop.getBodyBlock().getArguments();
  if (ivs.size() != 2)
    return nullptr;
  bool updates = false;
  loop.walk([&](memref::StoreOp store) {
    updates |= isLocalReducer(store.getMemRef()) &&
               llvm::equal(store.getIndices(), ivs.take_front());
  });
  return updates ? loopDriver(loop) : nullptr;
}

/// The register layout for a reducer (a local buffer that
/// tile.finalize_reducer combines) that is updated only in tile.parallel
/// loops at their first index (o[i] += a[i, j] * x[j] over a 2-d loop, or
/// at the index of a 1-d loop), and otherwise only cleared, filled,
/// finalized and copied out whole: the row layout of the loops' driver. As
/// a local buffer each thread would index its copy by rows that depend on
/// the thread (memory, not registers); as a fragment of that layout each
/// thread keeps the rows it updates in registers, the threads that hold a
/// row (its replicas) each a partial, which the finalize combines. Null
/// where the reducer is used otherwise or the loops disagree.
FragmentLayoutAttr
reducerRowLayout(AllocLocalOp alloc,
                 const DenseMap<Value, FragmentLayoutAttr> &layouts) {
  Value buffer = alloc.getResult();
  ArrayRef<int64_t> shape = alloc.getType().getShape();
  if (shape.size() != 1 || !isLocalReducer(buffer))
    return nullptr;
  FragmentLayoutAttr layout;
  for (Operation *user : buffer.getUsers()) {
    if (isa<FinalizeReducerOp, ClearOp, FillOp>(user))
      continue;
    if (auto copy = dyn_cast<CopyOp>(user)) {
      if (copy.getSource() != buffer ||
          ArrayRef<int64_t>(copy.getSourceSizes()) != shape)
        return nullptr;
      continue;
    }
    auto load = dyn_cast<memref::LoadOp>(user);
    auto store = dyn_cast<memref::StoreOp>(user);
    auto loop = user->getParentOfType<ParallelOp>();
    if ((!load && !store) || !loop)
      return nullptr;
    ValueRange indices = load ? load.getIndices() : store.getIndices();
    ValueRange ivs = loop.getBodyBlock().getArguments();
    ArrayRef<int64_t> extents = loop.getExtents();
    if (ivs.empty() || ivs.size() > 2 || indices.size() != 1 ||
        indices[0] != ivs[0] || extents[0] != shape[0])
      return nullptr;
    FragmentLayoutAttr driver = layouts.lookup(loopDriver(loop));
    if (!driver)
      return nullptr;
    FragmentLayoutAttr rows = ivs.size() == 2 ? getRowLayout(driver) : driver;
    // Every thread's slots hold elements (a vector smaller than the block
    // stays local: the threads that hold nothing have nothing to combine).
    if (!rows || (layout && rows != layout) ||
        (ShapedType::getNumElements(rows.getShape()) * rows.getReplicate()) %
                rows.getThreads() !=
            0)
      return nullptr;
    layout = rows;
  }
  return layout;
}

/// Reducers that reducerRowLayout gives a layout: fragments from here on.
void placeReducersInRegisters(
    KernelOp kernel, const DenseMap<Value, FragmentLayoutAttr> &layouts) {
  SmallVector<std::pair<AllocLocalOp, FragmentLayoutAttr>> reducers;
  kernel.walk([&](AllocLocalOp alloc) {
    if (FragmentLayoutAttr layout = reducerRowLayout(alloc, layouts))
      reducers.push_back({alloc, layout});
  });
  for (auto [alloc, layout] : reducers) {
    MemRefType local = alloc.getType();
    auto type = MemRefType::get(
        local.getShape(), local.getElementType(), MemRefLayoutAttrInterface{},
        ScopeAttr::get(alloc.getContext(), Scope::Fragment));
    OpBuilder b(alloc);
    auto fragment = AllocFragmentOp::create(b, alloc.getLoc(), type);
    fragment->setAttr(getLayoutAttrName(), layout);
    alloc.getResult().replaceAllUsesWith(fragment.getResult());
    alloc.erase();
  }
}

struct TileInferLayoutsPass
    : public tile::impl::TileInferLayoutsBase<TileInferLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    auto infer = [](KernelOp kernel, const TargetInfo &info) {
      FailureOr<DenseMap<Value, FragmentLayoutAttr>> layouts =
          inferFragmentLayouts(kernel, info);
      if (failed(layouts))
        return failure();
      kernel.walk([&](AllocFragmentOp alloc) {
        FragmentLayoutAttr layout = layouts->lookup(alloc.getResult());
        LLVM_DEBUG(llvm::dbgs()
                   << "layout of " << alloc << ": " << layout << "\n");
        alloc->setAttr(getLayoutAttrName(), layout);
      });
      placeReducersInRegisters(kernel, *layouts);
      return success();
    };
    if (failed(forEachGpuKernel(getOperation(), target, infer)))
      signalPassFailure();
  }
};

} // namespace

FailureOr<DenseMap<Value, FragmentLayoutAttr>>
mlir::tile::inferFragmentLayouts(KernelOp kernel, const TargetInfo &target) {
  DenseMap<Value, FragmentLayoutAttr> layouts;
  SmallVector<AllocFragmentOp> allocs;
  bool ok = true;
  kernel.walk([&](AllocFragmentOp alloc) {
    allocs.push_back(alloc);
    FailureOr<FragmentLayoutAttr> layout =
        anchorLayout(alloc, target, kernel.getThreads());
    if (failed(layout))
      ok = false;
    else if (*layout)
      layouts[alloc.getResult()] = *layout;
  });
  if (!ok)
    return failure();
  Propagation(layouts).run(kernel);
  // Tiles reduced along their rows that nothing anchored: the row-split
  // layout (each row on the lanes of one warp: the reduction stays in
  // registers and shuffles), then spread that too.
  bool added = false;
  kernel.walk([&](ReduceOp reduce) {
    Value src = reduce.getSource();
    auto type = cast<MemRefType>(src.getType());
    if (!src.getDefiningOp<AllocFragmentOp>() || layouts.count(src) ||
        reduce.getDim() != 1 || type.getRank() != 2 ||
        !type.getElementType().isIntOrFloat())
      return;
    if (FragmentLayoutAttr layout =
            chooseRowSplitLayout(type, kernel.getThreads())) {
      layouts[src] = layout;
      added = true;
    }
  });
  // Loops that update a reducer at their rows (o[i] += a[i, j] * x[j]) are
  // row reductions too: their driver, if nothing anchored it, gets the
  // row-split layout (the reducer then stays in registers: see
  // reducerRowLayout).
  kernel.walk([&](ParallelOp loop) {
    Value driver = reducerLoopDriver(loop);
    if (!driver || layouts.count(driver))
      return;
    if (FragmentLayoutAttr layout = chooseRowSplitLayout(
            cast<MemRefType>(driver.getType()), kernel.getThreads())) {
      layouts[driver] = layout;
      added = true;
    }
  });
  if (added)
    Propagation(layouts).run(kernel);
  // Fragments that scalar code reads or writes: a copy in every thread.
  if (assignScalarFragmentLayouts(kernel, layouts))
    Propagation(layouts).run(kernel);
  if (failed(checkScalarFragmentWrites(kernel, layouts)))
    return failure();
  for (AllocFragmentOp alloc : allocs) {
    FragmentLayoutAttr &layout = layouts[alloc.getResult()];
    if (!layout)
      layout = getCyclicLayout(alloc.getContext(), alloc.getType().getShape(),
                               kernel.getThreads());
  }
  return layouts;
}
