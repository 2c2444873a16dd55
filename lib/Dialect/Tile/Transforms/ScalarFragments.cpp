//===- ScalarFragments.cpp - Fragments that scalar code reads and writes --===//
//
// Part of tile-infer-layouts. A fragment that scalar code (outside every
// tile.parallel: the kernel body, serial loops, branches) reads or writes,
// and that nothing else gives a layout, is replicated: every thread holds
// every element, and an access is one to the thread's own copy. Reads are
// then always right; a write keeps the copies equal only when every thread
// makes it alike, so a store of a value, at an index, or under a condition
// or loop bound that differs between the block's threads is reported at the
// store (the program's line), never lowered to copies that disagree.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

bool inParallel(Operation *op) {
  return op->getParentOfType<ParallelOp>() != nullptr;
}

std::optional<Scope> scopeOf(Value memref) {
  return getScope(cast<MemRefType>(memref.getType()));
}

/// Which values every thread of the block computes alike. Local buffers
/// (each thread's own) hold such values when every write to them does;
/// that is assumed, then withdrawn for each local written otherwise, to a
/// fixed point.
class Uniformity {
public:
  Uniformity(KernelOp kernel, const DenseSet<Value> &replicated)
      : kernel(kernel), replicated(replicated) {
    kernel.walk([&](AllocLocalOp alloc) { locals.insert(alloc.getResult()); });
    bool changed = true;
    while (changed) {
      changed = false;
      memo.clear();
      for (Value local : llvm::to_vector(locals))
        if (!writtenUniformly(local)) {
          locals.erase(local);
          changed = true;
        }
    }
    memo.clear();
  }

  /// The first reason, if any, why `store` may differ between threads:
  /// "value", "index" or "control".
  StringRef whyNotUniform(memref::StoreOp store) {
    if (!isUniform(store.getValueToStore()))
      return "value";
    if (!llvm::all_of(store.getIndices(),
                      [&](Value v) { return isUniform(v); }))
      return "index";
    if (!underUniformControl(store))
      return "control";
    return "";
  }

private:
  bool writtenUniformly(Value local) {
    for (Operation *user : local.getUsers()) {
      if (isa<memref::LoadOp>(user))
        continue;
      auto store = dyn_cast<memref::StoreOp>(user);
      if (!store || store.getMemRef() != local || inParallel(store) ||
          !whyNotUniform(store).empty())
        return false;
    }
    return true;
  }

  bool underUniformControl(Operation *op) {
    for (Operation *p = op->getParentOp(); p && p != kernel;
         p = p->getParentOp()) {
      if (auto loop = dyn_cast<scf::ForOp>(p)) {
        if (!isUniform(loop.getLowerBound()) ||
            !isUniform(loop.getUpperBound()) || !isUniform(loop.getStep()))
          return false;
        continue;
      }
      if (!isa<scf::IfOp, PipelinedOp>(p))
        return false;
      if (!llvm::all_of(p->getOperands(),
                        [&](Value v) { return isUniform(v); }))
        return false;
    }
    return true;
  }

  bool isUniform(Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    memo[v] = false; // a cycle (through loop-carried values): not uniform
    bool uniform = compute(v);
    memo[v] = uniform;
    return uniform;
  }

  bool compute(Value v) {
    Operation *where = v.getParentBlock()->getParentOp();
    if (!kernel->isAncestor(where))
      return true; // the function's arguments and what it computes of them
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (owner == kernel.getOperation())
        return true; // the block indices
      if (auto loop = dyn_cast<scf::ForOp>(owner))
        return arg == loop.getInductionVar() &&
               underUniformControl(loop.getBody()->getTerminator());
      if (isa<PipelinedOp>(owner))
        return arg.getArgNumber() == 0 &&
               underUniformControl(&arg.getOwner()->front());
      return false;
    }
    Operation *def = v.getDefiningOp();
    if (isa<memref::DimOp>(def))
      return true;
    if (auto load = dyn_cast<memref::LoadOp>(def)) {
      Value memref = load.getMemRef();
      std::optional<Scope> scope = scopeOf(memref);
      bool source = !scope || *scope == Scope::Shared ||
                    replicated.contains(memref) || locals.contains(memref);
      return source && llvm::all_of(load.getIndices(),
                                    [&](Value i) { return isUniform(i); });
    }
    if (def->getNumRegions() != 0 ||
        !isa<arith::ArithDialect, math::MathDialect>(def->getDialect()))
      return false; // thread indices, shuffles, atomics, ...
    return llvm::all_of(def->getOperands(),
                        [&](Value o) { return isUniform(o); });
  }

  KernelOp kernel;
  const DenseSet<Value> &replicated;
  DenseSet<Value> locals;
  DenseMap<Value, bool> memo;
};

} // namespace

bool mlir::tile::assignScalarFragmentLayouts(
    KernelOp kernel, DenseMap<Value, FragmentLayoutAttr> &layouts) {
  bool added = false;
  kernel.walk([&](AllocFragmentOp alloc) {
    Value frag = alloc.getResult();
    if (layouts.lookup(frag))
      return;
    bool scalar = llvm::any_of(frag.getUsers(), [](Operation *user) {
      return isa<memref::LoadOp, memref::StoreOp>(user) && !inParallel(user);
    });
    if (!scalar)
      return;
    layouts[frag] = getReplicatedLayout(
        alloc.getContext(), alloc.getType().getShape(), kernel.getThreads());
    added = true;
  });
  return added;
}

LogicalResult mlir::tile::checkScalarFragmentWrites(
    KernelOp kernel, const DenseMap<Value, FragmentLayoutAttr> &layouts) {
  DenseSet<Value> replicated;
  for (auto [frag, layout] : layouts)
    if (isReplicatedLayout(layout))
      replicated.insert(frag);
  if (replicated.empty())
    return success();
  Uniformity uniformity(kernel, replicated);
  bool ok = true;
  kernel.walk([&](memref::StoreOp store) {
    if (!replicated.contains(store.getMemRef()) || inParallel(store))
      return;
    StringRef why = uniformity.whyNotUniform(store);
    if (why.empty())
      return;
    StringRef what = why == "value" ? "a value"
                     : why == "index" ? "an index"
                                      : "a condition or loop bound";
    store.emitOpError()
        << "writes a fragment outside a tile.parallel loop with " << what
        << " that differs between the block's threads; every thread holds "
           "its own copy of this fragment, and the other threads would not "
           "see the write (write a shared buffer instead, or a T.alloc_local "
           "buffer for a value of each thread's own)";
    ok = false;
  });
  return success(ok);
}
