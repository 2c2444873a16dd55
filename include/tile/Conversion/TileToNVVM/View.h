//===- View.h - tile.view on NVIDIA GPUs ------------------------*- C++ -*-===//

#ifndef TILE_CONVERSION_TILETONVVM_VIEW_H
#define TILE_CONVERSION_TILETONVVM_VIEW_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// After prepareKernelForNVVM: places every tile.view at the bytes of its
/// source, another view of the kernel's dynamic shared memory at the same
/// offset, so that the op patterns find its storage as they find a
/// buffer's.
LogicalResult prepareViewsForNVVM(RewriterBase &rewriter, KernelOp kernel);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETONVVM_VIEW_H
