//===- Pipeline.cpp - tile-software-pipeline on NVIDIA GPUs ---------------===//
//
// Each tile.pipelined loop gets a TMA and mbarrier ring where wgmma reads
// its stages (sm_90a, TmaPipeline.cpp), else cp.async stages
// (CpAsyncPipeline.cpp); and the helpers both pipeliners use to recompute
// a loop's values in another iteration.
//
//===----------------------------------------------------------------------===//

#include "NVVMCommon.h"

#include "tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "tile-software-pipeline"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::nvvm;

Value nvvm::cloneDependencies(RewriterBase &rewriter, Value v, Operation *scope,
                              IRMapping &mapping) {
  if (mapping.contains(v))
    return mapping.lookup(v);
  Operation *def = v.getDefiningOp();
  if (!def || !scope->isAncestor(def))
    return v;
  for (Value operand : def->getOperands())
    cloneDependencies(rewriter, operand, scope, mapping);
  return rewriter.clone(*def, mapping)
      ->getResult(cast<OpResult>(v).getResultNumber());
}

bool nvvm::computableFrom(Value v, Operation *scope, ValueRange ivs) {
  if (llvm::is_contained(ivs, v))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return !scope->isAncestor(v.getParentBlock()->getParentOp()) ||
           v.getParentBlock() == &scope->getRegion(0).front();
  if (!scope->isAncestor(def))
    return true;
  return isMemoryEffectFree(def) && def->getNumRegions() == 0 &&
         llvm::all_of(def->getOperands(),
                      [&](Value o) { return computableFrom(o, scope, ivs); });
}

nvvm::RingSlot nvvm::ringSlot(OpBuilder &b, Location loc, Value iv, Value lower,
                              Value step, int64_t numStages, Value base) {
  Value iteration = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, lower), step);
  if (base)
    iteration = arith::AddIOp::create(b, loc, base, iteration);
  Value stage =
      arith::RemUIOp::create(b, loc, iteration, indexConst(b, loc, numStages));
  return {iteration, stage};
}

LogicalResult mlir::tile::pipelineLoopsForNVVM(RewriterBase &rewriter,
                                               KernelOp kernel, int sm,
                                               int64_t sharedLimit) {
  int64_t sharedBytes = placedSharedBytes(kernel);
  SmallVector<PipelinedOp> loops;
  kernel.walk([&](PipelinedOp loop) { loops.push_back(loop); });
  bool producer = kernel->hasAttr(kProducerThreadsAttr), ring = false;
  for (PipelinedOp loop : loops) {
    FailureOr<bool> tma =
        sm < 90 ? false
                : pipelineWithTma(rewriter, loop, sharedBytes, sharedLimit);
    if (failed(tma))
      return failure();
    ring |= *tma;
    if (!*tma)
      pipelineWithCpAsync(rewriter, loop, sharedBytes);
  }
  if (producer && !ring)
    return kernel.emitOpError()
           << "has tile.producer_threads, but no pipelined loop of it is a "
              "TMA pipeline whose loads a producer warpgroup could issue";
  if (sharedBytes != 0)
    kernel->setAttr(getSharedBytesAttrName(),
                    rewriter.getI64IntegerAttr(sharedBytes));
  return success();
}
