//===- Kernel.cpp - The kernel's lowering on every GPU target -------------===//
//
// What tile-lower-ops and tile-lower-kernel do alike on every GPU target:
// once the op patterns ran, the tile views of placed buffers go (shared and
// local buffers are their storage; a fragment's elements are only reached
// by the lowered ops); then tile.kernel becomes a gpu.launch of its grid.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

LogicalResult mlir::tile::finishKernelForGPU(RewriterBase &rewriter,
                                             KernelOp kernel) {
  SmallVector<BindStorageOp> bounds;
  kernel.walk([&](BindStorageOp bound) { bounds.push_back(bound); });
  bool ok = true;
  for (BindStorageOp bound : bounds) {
    Value storage = bound.getStorage();
    if (bound.getLayout()) {
      // Elements of a fragment are spread over threads: only the lowered
      // tile ops and the loops over its elements may touch it.
      for (Operation *user : llvm::to_vector(bound->getUsers())) {
        // Accesses in a tile.parallel that is left: the loop is reported.
        if (isa<TileDialect>(user->getDialect()) ||
            user->getParentOfType<ParallelOp>() ||
            lowerScalarFragmentAccess(rewriter, bound, user))
          continue;
        user->emitOpError()
            << "reads or writes a fragment outside a tile.parallel loop over "
               "its elements; a fragment's elements are spread over the "
               "block's threads (copy it to a shared buffer first)";
        ok = false;
      }
      if (bound->use_empty())
        rewriter.eraseOp(bound);
      continue;
    }
    // Shared and local buffers: their storage serves the remaining memref
    // accesses directly.
    rewriter.replaceAllUsesWith(bound.getResult(), storage);
    rewriter.eraseOp(bound);
  }
  return success(ok);
}

/// Recomputes in the kernel the pure host values it uses (index arithmetic
/// on tensor sizes, constants), so that the kernel only captures the
/// function's arguments: a launcher then needs nothing but those.
static void sinkHostComputations(RewriterBase &rewriter, KernelOp kernel) {
  Block &body = kernel.getBodyBlock();
  llvm::SetVector<Value> captured;
  kernel.walk([&](Operation *op) {
    if (op == kernel.getOperation())
      return;
    for (Value operand : op->getOperands())
      if (!kernel->isAncestor(operand.getParentBlock()->getParentOp()))
        captured.insert(operand);
  });
  IRMapping mapping;
  std::function<bool(Value)> sinkable = [&](Value v) -> bool {
    if (isa<BlockArgument>(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumRegions() != 0 || def->getNumResults() != 1 ||
        !isMemoryEffectFree(def))
      return false;
    return llvm::all_of(def->getOperands(), sinkable);
  };
  // Clones go to the start of the body, operands before their users.
  rewriter.setInsertionPointToStart(&body);
  std::function<Value(Value)> clone = [&](Value v) -> Value {
    if (isa<BlockArgument>(v) || mapping.contains(v))
      return mapping.lookupOrDefault(v);
    Operation *def = v.getDefiningOp();
    for (Value operand : def->getOperands())
      clone(operand);
    Operation *copy = rewriter.clone(*def, mapping);
    return copy->getResult(0);
  };
  for (Value v : captured) {
    if (isa<BlockArgument>(v) || !sinkable(v))
      continue;
    Value inside = clone(v);
    rewriter.replaceUsesWithIf(v, inside, [&](OpOperand &use) {
      return use.getOwner() != kernel.getOperation() &&
             kernel->isAncestor(use.getOwner());
    });
  }
}

LogicalResult
mlir::tile::lowerKernelToGPU(RewriterBase &rewriter, KernelOp kernel,
                             int64_t extraThreads,
                             std::optional<ArrayRef<int64_t>> dims) {
  Location loc = kernel.getLoc();
  sinkHostComputations(rewriter, kernel);
  rewriter.setInsertionPoint(kernel);
  SmallVector<Value> grid =
      getValueOrCreateConstantIndexOp(rewriter, loc, kernel.getMixedGrid());
  Value one = indexConst(rewriter, loc, 1);
  while (grid.size() < 3)
    grid.push_back(one);
  Value threads =
      indexConst(rewriter, loc, kernel.getThreads() + extraThreads);
  auto sharedAttr =
      kernel->getAttrOfType<IntegerAttr>(getSharedBytesAttrName());
  Value shared =
      arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                   sharedAttr ? sharedAttr.getInt() : 0);
  SmallVector<Value> cluster(3, Value());
  if (dims)
    for (int64_t d = 0; d < 3; ++d)
      cluster[d] =
          indexConst(rewriter, loc,
                     d < static_cast<int64_t>(dims->size()) ? (*dims)[d] : 1);
  auto launch = gpu::LaunchOp::create(
      rewriter, loc, grid[0], grid[1], grid[2], threads, one, one, shared,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/ValueRange{},
      /*workgroupAttributions=*/TypeRange{},
      /*privateAttributions=*/TypeRange{}, cluster[0], cluster[1], cluster[2]);
  Block &launchBody = launch.getBody().front();
  // The builder leaves out the cluster ids and sizes the body takes after
  // the block / thread ids and sizes when the launch has a cluster size.
  if (cluster[0] && launchBody.getNumArguments() == 12)
    for (int i = 0; i < 6; ++i)
      launchBody.addArgument(rewriter.getIndexType(), loc);
  rewriter.setInsertionPointToEnd(&launchBody);
  auto terminator = gpu::TerminatorOp::create(rewriter, loc);
  gpu::KernelDim3 ids = launch.getBlockIds();
  SmallVector<Value> blockIds = {ids.x, ids.y, ids.z};
  Block &body = kernel.getBodyBlock();
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(
      &body, terminator,
      ArrayRef<Value>(blockIds).take_front(body.getNumArguments()));
  rewriter.eraseOp(kernel);

  WalkResult leftover = launch.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto memref = dyn_cast<MemRefType>(t);
          memref && isa_and_nonnull<ScopeAttr>(memref.getMemorySpace())) {
        op->emitOpError() << "still produces a tile buffer after lowering";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(leftover.wasInterrupted());
}
