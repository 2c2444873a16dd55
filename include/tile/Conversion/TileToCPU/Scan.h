//===- Scan.h - tile.scan on the CPU ----------------------------*- C++ -*-===//

#ifndef TILE_CONVERSION_TILETOCPU_SCAN_H
#define TILE_CONVERSION_TILETOCPU_SCAN_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// The pattern that lowers tile.scan for the CPU: the block's one host
/// thread scans every line of the region in turn.
void populateScanToCPUPatterns(RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOCPU_SCAN_H
