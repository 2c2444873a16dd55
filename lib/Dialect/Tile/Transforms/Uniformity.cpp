//===- Uniformity.cpp - Values every thread of a block computes alike -----===//

#include "tile/Dialect/Tile/Transforms/Uniformity.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

Uniformity::Uniformity(KernelOp kernel, const DenseSet<Value> &replicated)
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

StringRef Uniformity::whyNotUniform(memref::StoreOp store) {
  if (!isUniform(store.getValueToStore()))
    return "value";
  if (!llvm::all_of(store.getIndices(), [&](Value v) { return isUniform(v); }))
    return "index";
  if (!underUniformControl(store))
    return "control";
  return "";
}

bool Uniformity::writtenUniformly(Value local) {
  for (Operation *user : local.getUsers()) {
    if (isa<memref::LoadOp>(user))
      continue;
    auto store = dyn_cast<memref::StoreOp>(user);
    if (!store || store.getMemRef() != local ||
        store->getParentOfType<ParallelOp>() || !whyNotUniform(store).empty())
      return false;
  }
  return true;
}

bool Uniformity::underUniformControl(Operation *op) {
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
    if (!llvm::all_of(p->getOperands(), [&](Value v) { return isUniform(v); }))
      return false;
  }
  return true;
}

bool Uniformity::isUniform(Value v) {
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  memo[v] = false; // a cycle (through loop-carried values): not uniform
  bool uniform = compute(v);
  memo[v] = uniform;
  return uniform;
}

bool Uniformity::compute(Value v) {
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
    std::optional<Scope> scope = getScope(cast<MemRefType>(memref.getType()));
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
