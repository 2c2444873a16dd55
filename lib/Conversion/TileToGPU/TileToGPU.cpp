//===- TileToGPU.cpp - The target-neutral GPU patterns together -----------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "tile/Conversion/Utils.h"

using namespace mlir;
using namespace mlir::tile;

void mlir::tile::populateTileToGPUPatterns(RewritePatternSet &patterns,
                                           const GpuLowering &lowering) {
  populateFillToGPUPatterns(patterns);
  populateAtomicToGPUPatterns(patterns, lowering);
  populateCopyToGPUPatterns(patterns, lowering);
  populateParallelToGPUPatterns(patterns);
  populateReduceToGPUPatterns(patterns, lowering);
  populateReducerToGPUPatterns(patterns, lowering);
  populateScanToGPUPatterns(patterns, lowering);
  populateFastMathToGPUPatterns(patterns, lowering);
  // Loops that tile-software-pipeline did not pipeline run their copies to
  // completion (with barriers) before the compute; shared buffers stay
  // unswizzled, and fragment layouts were taken by tile-infer-layouts.
  populateSerialPipelinedAndLayoutPatterns(patterns);
}
