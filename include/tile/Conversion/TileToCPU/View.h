//===- View.h - tile.view on the CPU ----------------------------*- C++ -*-===//

#ifndef TILE_CONVERSION_TILETOCPU_VIEW_H
#define TILE_CONVERSION_TILETOCPU_VIEW_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// The patterns that lower tile.view for the CPU: a viewed shared buffer
/// is allocated as bytes, and it and its views are memref.views of them.
void populateViewToCPUPatterns(RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOCPU_VIEW_H
