//===- Scan.h - tile.scan on NVIDIA GPUs ------------------------*- C++ -*-===//

#ifndef TILE_CONVERSION_TILETONVVM_SCAN_H
#define TILE_CONVERSION_TILETONVVM_SCAN_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// After prepareKernelForNVVM: reserves the shared scratch of each
/// block-wide tile.scan (a fragment's staging copy, the partial results of
/// lines that several warps share) and checks that the block has a whole
/// warp to scan with.
LogicalResult prepareScansForNVVM(RewriterBase &rewriter, KernelOp kernel);

/// The pattern that lowers tile.scan for NVIDIA GPUs.
void populateScanToNVVMPatterns(RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETONVVM_SCAN_H
