//===- ClusterMulticast.cpp - TMA multicast in thread-block clusters ------===//
//
// Which loads of a warp-specialized TMA pipeline the blocks of a cluster
// share: those whose box is the same in every block. See Hopper.h.
//
//===----------------------------------------------------------------------===//

#include "Hopper.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

/// True when `v` is the same in every block of a cluster of `size` blocks
/// along grid dimension `dim`: computed by pure ops from values defined
/// outside `kernel`, block indices of other dimensions, the block index of
/// `dim` divided by a multiple of `size` (T.use_swizzle walks clusters so)
/// and `ivs`.
bool clusterUniform(Value v, KernelOp kernel, int64_t dim, int64_t size,
                    ValueRange ivs) {
  if (llvm::is_contained(ivs, v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def) {
    if (!kernel->isAncestor(v.getParentBlock()->getParentOp()))
      return true;
    auto arg = cast<BlockArgument>(v);
    return arg.getOwner() == &kernel.getBodyBlock() &&
           arg.getArgNumber() != dim;
  }
  if (!kernel->isAncestor(def))
    return true;
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def)) {
    auto arg = dyn_cast<BlockArgument>(def->getOperand(0));
    std::optional<int64_t> divisor = getConstantIntValue(def->getOperand(1));
    if (arg && arg.getOwner() == &kernel.getBodyBlock() &&
        arg.getArgNumber() == dim && divisor && *divisor > 0 &&
        *divisor % size == 0)
      return true;
  }
  return isMemoryEffectFree(def) && def->getNumRegions() == 0 &&
         llvm::all_of(def->getOperands(), [&](Value o) {
           return clusterUniform(o, kernel, dim, size, ivs);
         });
}

} // namespace

ClusterMulticast nvvm::planMulticast(PipelinedOp loop, KernelOp kernel,
                                     MutableArrayRef<TmaLoad> loads) {
  std::optional<ArrayRef<int64_t>> cluster = kernel.getCluster();
  if (!cluster)
    return {};
  ClusterMulticast plan;
  for (auto [d, extent] : llvm::enumerate(*cluster)) {
    if (extent == 1)
      continue;
    if (plan)
      return {}; // clusters along two dimensions: not yet
    plan.size = extent;
    plan.dim = d;
  }
  if (!plan)
    return {};
  for (Value bound : {loop.getLower(), loop.getUpper(), loop.getStep()})
    if (!clusterUniform(bound, kernel, plan.dim, plan.size, {}))
      return {};
  bool any = false;
  for (TmaLoad &load : loads) {
    load.multicast =
        load.rows % (8 * plan.size) == 0 &&
        llvm::all_of(load.tensorOffsets, [&](OpFoldResult ofr) {
          auto v = dyn_cast<Value>(ofr);
          return !v || clusterUniform(v, kernel, plan.dim, plan.size,
                                      loop.getInductionVar());
        });
    any |= load.multicast;
  }
  return any ? plan : ClusterMulticast();
}
