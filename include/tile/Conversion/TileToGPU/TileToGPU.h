//===- TileToGPU.h - Target-neutral GPU lowering patterns -------*- C++ -*-===//
//
// The op patterns every GPU target shares (lib/Conversion/TileToGPU): they
// build gpu, memref, scf, arith and vector ops only. A target adds them to
// its own pattern set next to its vendor-specific ones.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_TILETOGPU_H
#define TILE_CONVERSION_TILETOGPU_TILETOGPU_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// tile.fill and tile.clear of fragments, local and shared buffers.
void populateFillToGPUPatterns(RewritePatternSet &patterns);

/// tile.atomic_add / atomic_max / atomic_min of scalars, fragments and
/// shared buffers into global or shared memory.
void populateAtomicToGPUPatterns(RewritePatternSet &patterns);

/// Rewrites every tile.view of a placed shared buffer into a view of the
/// same bytes (a memref.view of dynamic shared memory at its offset).
LogicalResult prepareViewsForGPU(RewriterBase &rewriter, KernelOp kernel);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_TILETOGPU_H
