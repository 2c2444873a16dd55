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
#include "tile/Dialect/Tile/Transforms/Uniformity.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

bool inParallel(Operation *op) {
  return op->getParentOfType<ParallelOp>() != nullptr;
}

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
