//===- Buffers.cpp - tile-place-buffers on GPUs ---------------------------===//
//
// Gives each tile buffer of a kernel its storage: shared buffers become
// views of the kernel's dynamic shared memory (at byte 0 with
// tile-plan-shared's offset as their planned_offset, until
// tile-plan-scratch places them), fragments per-thread register arrays
// under their layout, local buffers per-thread arrays.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuCommon.h"
#include "tile/Conversion/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#define DEBUG_TYPE "tile-place-buffers"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

namespace {

/// Whether the fragment walks of this lowering (registers 0 .. registers - 1
/// of every thread, guarded by registerHoldsElement) visit exactly the slots
/// `layout` gives the tile's elements: its N elements, one each, in the
/// slots (thread t, register r) with r * T + t < N. Layouts too large to
/// enumerate are trusted.
bool isWalkable(FragmentLayoutAttr layout, int64_t registers) {
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t n = numElements(shape), threads = layout.getThreads();
  // Replicas: the inverse places a copy in every slot (the attribute's
  // verifier checked it).
  if (layout.getReplicate() > 1)
    return (n * layout.getReplicate()) % threads == 0 &&
           n * layout.getReplicate() == registers * threads;
  if (n > (int64_t(1) << 20))
    return true;
  int64_t visited = 0;
  for (int64_t r = 0; r < registers; ++r)
    visited += n % threads == 0
                   ? threads
                   : std::max<int64_t>(0, std::min(n - r * threads, threads));
  if (visited != n)
    return false;
  SmallVector<int64_t> index(shape.size());
  for (int64_t linear = 0; linear < n; ++linear) {
    int64_t rest = linear;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    auto [t, r] = layout.apply(index);
    if (r >= registers || (n % threads != 0 && t >= n - r * threads))
      return false;
  }
  return true;
}

} // namespace

LogicalResult mlir::tile::placeBuffersForGPU(RewriterBase &rewriter,
                                             KernelOp kernel,
                                             int64_t registerLimit,
                                             Attribute privateSpace) {
  Location loc = kernel.getLoc();
  Block &block = kernel.getBodyBlock();
  auto bind = [&](Operation *alloc, Value storage, FragmentLayoutAttr layout) {
    auto bound = BindStorageOp::create(rewriter, alloc->getLoc(),
                                       alloc->getResultTypes()[0], storage);
    if (layout)
      bound.setLayoutAttr(layout);
    rewriter.replaceOp(alloc, bound.getOperation());
    return bound;
  };

  SmallVector<Operation *> allocs;
  kernel.walk([&](Operation *op) {
    if (isa<AllocSharedOp, AllocFragmentOp, AllocLocalOp>(op))
      allocs.push_back(op);
  });
  for (Operation *op : allocs) {
    auto type = cast<MemRefType>(op->getResult(0).getType());
    rewriter.setInsertionPointToStart(&block);
    if (auto shared = dyn_cast<AllocSharedOp>(op)) {
      std::optional<uint64_t> planned = shared.getOffset();
      if (!planned)
        return shared.emitOpError()
               << "has no shared-memory offset; run tile-plan-shared first";
      // After the register arrays made so far: they stay first in the
      // kernel's entry block, where LLVM promotes them to registers (a
      // shared tile allocated after a fragment, as TileLang's C_shared is,
      // would otherwise keep the accumulator in local memory).
      Operation *first = &block.front();
      while (isa<memref::AllocaOp>(first))
        first = first->getNextNode();
      rewriter.setInsertionPoint(first);
      // At byte 0 until tile-plan-scratch, which places the planned region
      // once the pipelines have taken over the buffers they replace by
      // stage buffers.
      auto offset = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value view = sharedView(rewriter, loc, type.getShape(),
                              type.getElementType(), offset);
      rewriter.setInsertionPoint(op);
      bind(op, view, nullptr)
          .setPlannedOffsetAttr(rewriter.getI64IntegerAttr(*planned));
    } else if (auto frag = dyn_cast<AllocFragmentOp>(op)) {
      auto layout =
          frag->getAttrOfType<FragmentLayoutAttr>(getLayoutAttrName());
      if (!layout || !layout.getInverse())
        return frag.emitOpError()
               << "has no register layout with an inverse; run "
                  "tile-infer-layouts first";
      // The walks below unroll over a thread's registers: bound them first
      // (tile-verify-target checks the share before layouts replicate it).
      uint64_t words = llvm::divideCeil(uint64_t(getBufferBytes(type)), 4);
      uint64_t share = llvm::SaturatingMultiply(
          llvm::divideCeil(words, uint64_t(layout.getThreads())),
          uint64_t(layout.getReplicate()));
      if (share > uint64_t(registerLimit))
        return frag.emitOpError()
               << "needs " << share << " 32-bit registers a thread in its "
               << "layout; the target takes at most " << registerLimit
               << ", spills included (use a smaller tile or more threads)";
      int64_t elements = type.getNumElements() * layout.getReplicate();
      int64_t registers =
          (elements + layout.getThreads() - 1) / layout.getThreads();
      if (!isWalkable(layout, registers))
        return frag.emitOpError()
               << "has a register layout this lowering cannot walk: it needs "
                  "the "
               << type.getNumElements() << " elements, one each, in the slots "
               << "(thread t, register r) with r * " << layout.getThreads()
               << " + t < " << type.getNumElements();
      Value regs = memref::AllocaOp::create(
          rewriter, loc,
          MemRefType::get({registers}, type.getElementType(),
                          MemRefLayoutAttrInterface(), privateSpace));
      rewriter.setInsertionPoint(op);
      bind(op, regs, layout);
    } else {
      Value array = memref::AllocaOp::create(
          rewriter, loc,
          MemRefType::get(type.getShape(), type.getElementType(),
                          MemRefLayoutAttrInterface(), privateSpace));
      rewriter.setInsertionPoint(op);
      bind(op, array, nullptr);
    }
  }
  return success();
}
