//===- View.cpp - tile.view on GPUs ---------------------------------------===//
//
// A shared buffer is a memref.view of the kernel's dynamic shared memory at
// its offset; a tile.view of it is another memref.view at the same offset,
// with the view's shape and element type.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/TileToGPU/GpuCommon.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::tilegpu;

LogicalResult mlir::tile::prepareViewsForGPU(RewriterBase &rewriter,
                                             KernelOp kernel) {
  // In program order: a view of a view finds its source placed.
  SmallVector<ViewOp> views;
  kernel.walk([&](ViewOp op) { views.push_back(op); });
  for (ViewOp op : views) {
    std::optional<Storage> s = getStorage(op.getSource());
    auto bytes = s ? s->memref.getDefiningOp<memref::ViewOp>() : nullptr;
    if (!bytes || s->swizzleChunks || s->panelRows)
      return op.emitOpError()
             << "views a shared buffer that the lowering stores swizzled or "
                "in pipeline stages; view a buffer that a pipelined loop "
                "does not fill for gemms";
    MemRefType type = op.getType();
    rewriter.setInsertionPoint(op);
    Value view = memref::ViewOp::create(
        rewriter, op.getLoc(),
        MemRefType::get(type.getShape(), type.getElementType(),
                        MemRefLayoutAttrInterface(),
                        bytes.getType().getMemorySpace()),
        bytes.getSource(), bytes.getByteShift(), ValueRange{});
    auto bound = BindStorageOp::create(rewriter, op.getLoc(), type, view);
    rewriter.replaceOp(op, bound.getResult());
  }
  return success();
}
