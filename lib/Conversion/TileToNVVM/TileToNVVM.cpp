//===- TileToNVVM.cpp - Lowering tile ops for NVIDIA GPUs -----------------===//
//
// The entry points of the NVIDIA lowering: its GpuLowering (the warp of 32
// lanes, ex2.approx as the fast exp2, the async-proxy fence before wgmma
// reads what threads wrote), the patterns of tile-lower-ops (the
// target-neutral ones of lib/Conversion/TileToGPU and the gemms), what is
// left to do after them, and tile-lower-kernel's gpu.launch.
//
// Buffers: shared buffers are views of the kernel's dynamic shared memory;
// a fragment is an array of registers in each thread, element e living in
// register layout.map(e)[1] of thread layout.map(e)[0]; local buffers are
// per-thread arrays. Until the op patterns are done, each buffer keeps its
// tile type through a tile.bind_storage of its storage, so that the
// remaining tile ops still verify.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"

#include "NVVMCommon.h"

#include "tile/Conversion/TileToGPU/GpuLowering.h"
#include "tile/Conversion/TileToGPU/TileToGPU.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

namespace {

class NVVMGpuLowering final : public GpuLowering {
public:
  using GpuLowering::GpuLowering;

  bool hasFastExp2() const override { return true; }
  /// One `ex2.approx.ftz.f32` (libdevice's exp2f adds a denormal range
  /// check around it).
  Value emitFastExp2(OpBuilder &b, Location loc, Value x) const override {
    return LLVM::CallIntrinsicOp::create(
               b, loc, b.getF32Type(),
               b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"), ValueRange{x})
        .getResult(0);
  }
  /// wgmma reads shared memory through the async proxy.
  void fenceSharedForAsyncReads(OpBuilder &b, Location loc) const override {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
  }
};

} // namespace

std::unique_ptr<GpuLowering>
mlir::tile::createNVVMGpuLowering(int64_t warpSize) {
  return std::make_unique<NVVMGpuLowering>(warpSize);
}

void mlir::tile::populateTileToNVVMOpPatterns(RewritePatternSet &patterns,
                                              const GpuLowering &lowering) {
  populateTileToGPUPatterns(patterns, lowering);
  populateGemmToNVVMPatterns(patterns);
  populateGemmSpToNVVMPatterns(patterns);
}

LogicalResult mlir::tile::finishKernelForNVVM(RewriterBase &rewriter,
                                              KernelOp kernel) {
  // In a block with a producer warpgroup, the consumers synchronize among
  // themselves: named barrier 1 over their threads.
  kernel.walk([&](scf::IfOp split) {
    auto consumers = split->getAttrOfType<IntegerAttr>(kConsumerThreadsAttr);
    if (!consumers)
      return;
    SmallVector<gpu::BarrierOp> barriers;
    split.getThenRegion().walk(
        [&](gpu::BarrierOp b) { barriers.push_back(b); });
    for (gpu::BarrierOp b : barriers) {
      rewriter.setInsertionPoint(b);
      Location loc = b.getLoc();
      Value id =
          arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), 1);
      Value count = arith::ConstantIntOp::create(
          rewriter, loc, rewriter.getI32Type(), consumers.getInt());
      NVVM::BarrierOp::create(rewriter, loc, Type(), id, count, nullptr,
                              Value());
      rewriter.eraseOp(b);
    }
  });
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

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

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

LogicalResult mlir::tile::lowerKernelToNVVM(RewriterBase &rewriter,
                                            KernelOp kernel, int sm) {
  Location loc = kernel.getLoc();
  sinkHostComputations(rewriter, kernel);
  rewriter.setInsertionPoint(kernel);
  SmallVector<Value> grid =
      getValueOrCreateConstantIndexOp(rewriter, loc, kernel.getMixedGrid());
  Value one = indexConst(rewriter, loc, 1);
  while (grid.size() < 3)
    grid.push_back(one);
  // A producer warpgroup (TMA pipelines on sm_90a) runs after the
  // kernel's own threads.
  int64_t producers = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(kProducerThreadsAttr))
    producers = attr.getInt();
  Value threads = indexConst(rewriter, loc, kernel.getThreads() + producers);
  auto sharedAttr =
      kernel->getAttrOfType<IntegerAttr>(getSharedBytesAttrName());
  Value shared =
      arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                   sharedAttr ? sharedAttr.getInt() : 0);
  // Thread-block clusters (sm_90 and later): the launch's cluster size.
  SmallVector<Value> cluster(3, Value());
  if (std::optional<ArrayRef<int64_t>> dims = kernel.getCluster()) {
    if (sm < 90)
      return kernel.emitOpError()
             << "uses thread-block clusters, which sm_" << sm
             << " does not have (they need sm_90a); remove cluster(...)";
    for (int64_t d = 0; d < 3; ++d)
      cluster[d] =
          indexConst(rewriter, loc,
                     d < static_cast<int64_t>(dims->size()) ? (*dims)[d] : 1);
  }
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
