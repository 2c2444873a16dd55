//===- PlanScratch.cpp - tile-plan-scratch on GPUs ------------------------===//
//
// After the pipelines' stage buffers: the shared scratch buffers of the op
// lowerings (reduce partials, gemm_sp's dense A, fragments that some use
// reads across threads), then tile-plan-shared's region, whose views get
// their final offsets (and a swizzle where only gemms read them).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/TileToGPU/Plans.h"
#include "tile/Conversion/TileToGPU/TileToGPU.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "tile-plan-scratch"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

/// The swizzle (16-byte chunks per row) of a plain 2-d shared buffer that
/// whole-tile copies from global memory fill and only gemms read, so that
/// the gemms' operand reads (ldmatrix on NVIDIA, 8 bytes a lane on AMD)
/// spread over the banks; 0 to keep it unswizzled. The
/// copies store through physicalIndices, the gemms read through
/// swizzledColumn.
static int64_t swizzleChunksOf(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() != 2 || !type.getElementType().isIntOrFloat())
    return 0;
  int64_t rowBits = type.getShape()[1] * type.getElementTypeBitWidth();
  if (rowBits % 128 != 0 || rowBits / 128 < 2)
    return 0;
  bool read = false, written = false;
  for (Operation *user : buffer.getUsers()) {
    if (auto gemm = dyn_cast<GemmOp>(user)) {
      if (gemm.getC() == buffer)
        return 0;
      read = true;
      continue;
    }
    auto copy = dyn_cast<CopyOp>(user);
    if (!copy || copy.getTarget() != buffer ||
        !isGlobal(copy.getSource().getType()) ||
        ArrayRef<int64_t>(copy.getTargetSizes()) != type.getShape() ||
        !llvm::all_of(copy.getMixedTargetOffsets(),
                      [](OpFoldResult o) { return isConstantIntValue(o, 0); }))
      return 0;
    written = true;
  }
  return read && written ? rowBits / 128 : 0;
}

namespace {

/// A shared buffer that tile-place-buffers placed in tile-plan-shared's
/// region: its view of dynamic shared memory at a placeholder offset.
struct PlannedView {
  BindStorageOp bound;
  memref::ViewOp view;
  arith::ConstantIndexOp offset;
  int64_t bytes;
  int64_t planned; // tile-plan-shared's offset in the planned region
};

} // namespace

/// The shared buffers of `kernel` still at their planned offset.
static FailureOr<SmallVector<PlannedView>>
collectPlannedViews(KernelOp kernel) {
  SmallVector<PlannedView> views;
  WalkResult walk = kernel.walk([&](BindStorageOp bound) {
    std::optional<uint64_t> planned = bound.getPlannedOffset();
    if (!planned)
      return WalkResult::advance();
    auto view = bound.getStorage().getDefiningOp<memref::ViewOp>();
    auto offset =
        view ? view.getByteShift().getDefiningOp<arith::ConstantIndexOp>()
             : arith::ConstantIndexOp();
    if (!offset ||
        !view.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>()) {
      bound.emitOpError() << "has a planned offset but its storage is not a "
                             "view of dynamic shared memory at a constant "
                             "offset (what tile-place-buffers makes)";
      return WalkResult::interrupt();
    }
    MemRefType type = bound.getType();
    // index elements are stored as 64-bit integers.
    int64_t bits = type.getElementType().isIndex()
                       ? 64
                       : type.getElementType().getIntOrFloatBitWidth();
    views.push_back({bound, view, offset,
                     (type.getNumElements() * bits + 7) / 8,
                     int64_t(*planned)});
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return views;
}

LogicalResult mlir::tile::planScratchForGPU(
    RewriterBase &rewriter, KernelOp kernel, int64_t sharedLimit,
    int64_t warpSize, function_ref<bool(GemmOp)> gemmAInRegisters) {
  FailureOr<SmallVector<PlannedView>> planned = collectPlannedViews(kernel);
  if (failed(planned))
    return failure();
  SmallVector<PlannedView> &sharedViews = *planned;
  int64_t sharedBytes = placedSharedBytes(kernel);
  // Shared scratch copies of the fragments some use reads across threads:
  // reductions, gemm operands, loops that read another shape.
  llvm::SetVector<Value> needScratch;
  // The partials of the warps that share rows, a buffer a reduce.
  SmallVector<std::pair<ReduceOp, int64_t>> reduceScratch;
  kernel.walk([&](Operation *op) {
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      std::optional<tilegpu::RegisterReduce> plan =
          tilegpu::planRegisterReduce(reduce, warpSize);
      if (!plan)
        needScratch.insert(reduce.getSource());
      else if (int64_t bytes = plan->scratchBytes())
        reduceScratch.push_back({reduce, bytes});
    } else if (auto copy = dyn_cast<CopyOp>(op)) {
      std::optional<Storage> from = getStorage(copy.getSource());
      std::optional<Storage> to = getStorage(copy.getTarget());
      if (from && to && from->scope == Scope::Fragment &&
          to->scope == Scope::Fragment && from->layout != to->layout)
        needScratch.insert(copy.getSource());
    } else if (auto gemm = dyn_cast<GemmOp>(op)) {
      if (!gemmAInRegisters(gemm))
        needScratch.insert(gemm.getA());
      needScratch.insert(gemm.getB());
    } else if (auto loop = dyn_cast<ParallelOp>(op)) {
      tilegpu::ParallelPlan plan = tilegpu::planParallel(loop);
      needScratch.insert(plan.staged.begin(), plan.staged.end());
    }
  });
  // The shared buffers still in use (a pipelined buffer lives on in its
  // stage buffers only).
  int64_t plannedEnd = -1;
  for (PlannedView &v : sharedViews) {
    if (v.bound->use_empty()) {
      // Hand-written IR may bind one view (or offset) more than once: each
      // goes with its last user.
      Value base = v.view.getSource();
      rewriter.eraseOp(v.bound);
      if (v.view->use_empty())
        rewriter.eraseOp(v.view);
      if (v.offset->use_empty())
        rewriter.eraseOp(v.offset);
      if (base.use_empty())
        rewriter.eraseOp(base.getDefiningOp());
      v.bound = BindStorageOp();
      continue;
    }
    plannedEnd = std::max(plannedEnd, v.planned + v.bytes);
  }
  // After the pipelines' stages: the scratch buffers, then the region
  // tile-plan-shared planned. Each reduce's partials get bytes of their
  // own, unless the kernel fits only when they share them: a reduce
  // synchronizes the block before it writes its partials, after every
  // thread read those of the reduces before it.
  auto place = [&](bool shareReduceScratch, bool apply) {
    int64_t bytes = sharedBytes;
    auto reserve = [&](Operation *op, int64_t size) {
      bytes = llvm::alignTo(bytes, kSharedAlignment);
      // A fragment's scratch copy, or a reduce's or gemm_sp's own.
      if (auto bound = dyn_cast<BindStorageOp>(op); apply && bound)
        bound.setScratchOffsetAttr(rewriter.getI64IntegerAttr(bytes));
      else if (apply)
        op->setAttr(kScratchAttr, rewriter.getI64IntegerAttr(bytes));
      bytes += size;
    };
    if (shareReduceScratch && !reduceScratch.empty()) {
      int64_t widest = 0;
      for (auto [reduce, size] : reduceScratch)
        widest = std::max(widest, size);
      bytes = llvm::alignTo(bytes, kSharedAlignment);
      for (auto [reduce, size] : reduceScratch)
        if (apply)
          reduce->setAttr(kScratchAttr, rewriter.getI64IntegerAttr(bytes));
      bytes += widest;
    } else {
      for (auto [reduce, size] : reduceScratch)
        reserve(reduce, size);
    }
    // tile.gemm_sp expands its compressed A into a dense shared buffer.
    kernel.walk([&](GemmSpOp gemm) {
      MemRefType a = gemm.getA().getType();
      reserve(gemm, 2 * a.getNumElements() * a.getElementTypeBitWidth() / 8);
    });
    for (Value v : needScratch) {
      std::optional<Storage> s = getStorage(v);
      if (!s || s->scope != Scope::Fragment)
        continue;
      auto type = cast<MemRefType>(v.getType());
      reserve(v.getDefiningOp(),
              type.getNumElements() * type.getElementTypeBitWidth() / 8);
    }
    if (plannedEnd < 0)
      return bytes;
    int64_t base = llvm::alignTo(bytes, kSharedAlignment);
    if (apply)
      for (PlannedView &v : sharedViews) {
        if (!v.bound)
          continue;
        rewriter.modifyOpInPlace(v.offset, [&] {
          v.offset.setValueAttr(rewriter.getIndexAttr(base + v.planned));
        });
        v.bound.removePlannedOffsetAttr();
        if (int64_t chunks = swizzleChunksOf(v.bound))
          v.bound.setSwizzleChunksAttr(rewriter.getI64IntegerAttr(chunks));
      }
    return base + plannedEnd;
  };
  bool share = reduceScratch.size() > 1 && place(/*shareReduceScratch=*/false,
                                                 /*apply=*/false) > sharedLimit;
  sharedBytes = place(share, /*apply=*/true);
  // The plan is consumed: its buffers are views now.
  kernel.removePlannedSharedBytesAttr();
  kernel->setAttr(getSharedBytesAttrName(),
                  rewriter.getI64IntegerAttr(sharedBytes));
  return success();
}
